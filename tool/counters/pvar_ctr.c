/* Performance variables read at every MPI call: lookup by name, one handle each in a private
 * session, integer reads combined over an array's elements. */
#include "counters.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"
#include "mpit/own/own.h"
#include "tool/profile/profile.h"

enum pc_type { PC_INT, PC_UNSIGNED, PC_ULONG, PC_ULLONG, PC_COUNT };

struct pc_var {
    MPI_T_pvar_handle handle;
    enum pc_type type;
    int cls, count;
};

static struct {
    int on, session_open, n;
    MPI_T_pvar_session session;
    struct pc_var v[PROF_COUNTERS];
} pc;

static int int_type(MPI_Datatype t, enum pc_type *out)
{
    static const enum pc_type kinds[] = {PC_INT, PC_UNSIGNED, PC_ULONG, PC_ULLONG, PC_COUNT};
    const MPI_Datatype types[] = {MPI_INT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                                  MPI_UNSIGNED_LONG_LONG, MPI_COUNT};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (t == types[i]) {
            *out = kinds[i];
            return 1;
        }
    return 0;
}

static long long element(enum pc_type t, const void *buf, int k)
{
    switch (t) {
    case PC_INT:
        return ((const int *)buf)[k];
    case PC_UNSIGNED:
        return ((const unsigned *)buf)[k];
    case PC_ULONG:
        return (long long)((const unsigned long *)buf)[k];
    case PC_ULLONG:
        return (long long)((const unsigned long long *)buf)[k];
    case PC_COUNT:
        return (long long)((const MPI_Count *)buf)[k];
    }
    return 0;
}

static int seen(char **names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i] + 6, name)) /* after "mpi_t:" */
            return 1;
    return 0;
}

/* Open variable index as pc.v[pc.n] if it can be read per call; 1 when it was. */
static int open_var(int index, int cls, int bind, int continuous, enum pc_type type)
{
    struct pc_var *v = &pc.v[pc.n];
    MPI_Comm world = MPI_COMM_WORLD;
    if (cls == MPI_T_PVAR_CLASS_STATE || cls == MPI_T_PVAR_CLASS_GENERIC ||
        (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM))
        return 0;
    if (!pc.session_open && own_T_pvar_session_create(&pc.session) != MPI_SUCCESS)
        return 0;
    pc.session_open = 1;
    if (own_T_pvar_handle_alloc(pc.session, index, bind == MPI_T_BIND_MPI_COMM ? &world : NULL,
                                &v->handle, &v->count) != MPI_SUCCESS)
        return 0;
    if (v->count < 1 || v->count > PC_MAX_ELEMS) {
        own_T_pvar_handle_free(pc.session, &v->handle);
        return 0;
    }
    if (!continuous && own_T_pvar_start(pc.session, v->handle) != MPI_SUCCESS) {
        own_T_pvar_handle_free(pc.session, &v->handle);
        return 0;
    }
    v->type = type;
    v->cls = cls;
    pc.n++;
    return 1;
}

int pc_start(const char *spec, int room, char **names, struct strbuf *note)
{
    int provided, num = 0, skipped = 0;
    if (!*spec)
        return 0;
    if (!cfg.mpit) {
        sb_puts(note, "TARDY_PVAR_COUNTERS: not read (TARDY_MPIT=0)\n");
        return 0;
    }
    if (own_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        sb_puts(note, "TARDY_PVAR_COUNTERS: not read (MPI_T_init_thread failed)\n");
        return 0;
    }
    pc.on = 1;
    own_T_pvar_get_num(&num);
    for (int i = 0; i < num; i++) {
        char name[256], desc[1024];
        int nlen = sizeof name, dlen = sizeof desc, verbosity, cls, bind, readonly, continuous,
            atomic;
        MPI_Datatype type;
        MPI_T_enum en;
        enum pc_type t;
        if (own_T_pvar_get_info(i, name, &nlen, &verbosity, &cls, &type, &en, desc, &dlen,
                                &bind, &readonly, &continuous, &atomic) != MPI_SUCCESS ||
            !gl_match(spec, name) || seen(names, pc.n, name))
            continue;
        if (pc.n == room || !int_type(type, &t) || !open_var(i, cls, bind, continuous, t)) {
            skipped++;
            continue;
        }
        size_t len = strlen(name) + 7;
        if (!(names[pc.n - 1] = malloc(len))) {
            own_T_pvar_handle_free(pc.session, &pc.v[--pc.n].handle);
            continue;
        }
        snprintf(names[pc.n - 1], len, "mpi_t:%s", name);
    }
    if (skipped)
        sb_printf(note, "TARDY_PVAR_COUNTERS: %d performance variables matching it are not read "
                        "per call (not integer, a state, bound to an object other than "
                        "MPI_COMM_WORLD, more than %d elements, or beyond the %d counter "
                        "columns)\n", skipped, PC_MAX_ELEMS, PROF_COUNTERS);
    if (!pc.n && !skipped)
        sb_printf(note, "TARDY_PVAR_COUNTERS: this MPI library has no performance variable "
                        "matching %s\n", spec);
    return pc.n;
}

void pc_keep(const int *keep)
{
    int n = 0;
    for (int i = 0; i < pc.n; i++) {
        if (keep[i])
            pc.v[n++] = pc.v[i];
        else
            own_T_pvar_handle_free(pc.session, &pc.v[i].handle);
    }
    pc.n = n;
}

void pc_read(long long *out, unsigned long long *buf)
{
    for (int i = 0; i < pc.n; i++) {
        const struct pc_var *v = &pc.v[i];
        if (own_T_pvar_read(pc.session, v->handle, buf) != MPI_SUCCESS)
            continue;
        long long x = element(v->type, buf, 0);
        for (int k = 1; k < v->count; k++) {
            long long e = element(v->type, buf, k);
            if (v->cls == MPI_T_PVAR_CLASS_HIGHWATERMARK || v->cls == MPI_T_PVAR_CLASS_PERCENTAGE)
                x = e > x ? e : x;
            else if (v->cls == MPI_T_PVAR_CLASS_LOWWATERMARK)
                x = e < x ? e : x;
            else
                x += e;
        }
        out[i] = x;
    }
}

void pc_stop(void)
{
    if (!pc.on)
        return;
    for (int i = 0; i < pc.n; i++)
        own_T_pvar_handle_free(pc.session, &pc.v[i].handle);
    pc.n = 0;
    if (pc.session_open)
        own_T_pvar_session_free(&pc.session);
    pc.session_open = 0;
    own_T_finalize();
    pc.on = 0;
}
