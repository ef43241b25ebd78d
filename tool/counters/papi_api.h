/* PAPI, loaded with dlopen only when counters are asked for (TARDY_PAPI): linked in, libpapi
 * and its components add ≈ 2.3 MiB to every rank's resident memory, more than the rest of the
 * tool together. Code calls papi.create_eventset(...) where it would call
 * PAPI_create_eventset(...); papi.h still gives the types and constants. */
#ifndef TARDY_PAPI_API_H
#define TARDY_PAPI_API_H

#include <papi.h>
#include <stddef.h>

struct papi_api {
    int (*library_init)(int version);
    int (*thread_init)(unsigned long (*id_fn)(void));
    int (*multiplex_init)(void);
    int (*event_name_to_code)(const char *name, int *code);
    int (*get_event_component)(int code);
    const PAPI_component_info_t *(*get_component_info)(int cidx);
    int (*create_eventset)(int *es);
    int (*assign_eventset_component)(int es, int cidx);
    int (*set_multiplex)(int es);
    int (*add_event)(int es, int code);
    int (*start)(int es);
    int (*read)(int es, long long *values);
    int (*cleanup_eventset)(int es);
    int (*destroy_eventset)(int *es);
    char *(*strerror)(int rc);
};

extern struct papi_api papi;

/* Load libpapi (PAPI_SONAME) and resolve every function above, once. Returns 0, or -1 with
 * the loader's reason in why. */
int papi_load(char *why, size_t len);

#endif
