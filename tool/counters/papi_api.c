/* Loading PAPI on demand (see papi_api.h). */
#include "papi_api.h"

#include <dlfcn.h>
#include <stdio.h>

#ifndef PAPI_SONAME
#define PAPI_SONAME "libpapi.so.7.0"
#endif

struct papi_api papi;

int papi_load(char *why, size_t len)
{
    static int state; /* 0 not tried, 1 loaded, -1 failed */
    static char reason[256];
    if (state == 0) {
        void *h = dlopen(PAPI_SONAME, RTLD_NOW | RTLD_GLOBAL);
        const char *err = h ? NULL : dlerror();
#define RESOLVE(field, name)                                                                    \
    if (!err && !(*(void **)&papi.field = dlsym(h, #name)))                                     \
        err = dlerror();
        RESOLVE(library_init, PAPI_library_init)
        RESOLVE(thread_init, PAPI_thread_init)
        RESOLVE(multiplex_init, PAPI_multiplex_init)
        RESOLVE(event_name_to_code, PAPI_event_name_to_code)
        RESOLVE(get_event_component, PAPI_get_event_component)
        RESOLVE(get_component_info, PAPI_get_component_info)
        RESOLVE(create_eventset, PAPI_create_eventset)
        RESOLVE(assign_eventset_component, PAPI_assign_eventset_component)
        RESOLVE(set_multiplex, PAPI_set_multiplex)
        RESOLVE(add_event, PAPI_add_event)
        RESOLVE(start, PAPI_start)
        RESOLVE(read, PAPI_read)
        RESOLVE(cleanup_eventset, PAPI_cleanup_eventset)
        RESOLVE(destroy_eventset, PAPI_destroy_eventset)
        RESOLVE(strerror, PAPI_strerror)
#undef RESOLVE
        state = err ? -1 : 1;
        if (err)
            snprintf(reason, sizeof reason, "cannot load %s: %s", PAPI_SONAME, err);
    }
    if (state < 0)
        snprintf(why, len, "%s", reason);
    return state > 0 ? 0 : -1;
}
