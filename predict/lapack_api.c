/* Loading LAPACK on demand (see lapack_api.h). */
#include "lapack_api.h"
#include "predict.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#ifndef LAPACK_SONAME
#define LAPACK_SONAME "liblapack.so.3"
#endif

struct lapack_api lapack;

int lapack_load_from(const char *soname, struct lapack_api *api, char *why, size_t len)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    const char *err = h ? NULL : dlerror();
#define RESOLVE(field, name)                                                                    \
    if (!err && !(*(void **)&api->field = dlsym(h, #name)))                                     \
        err = dlerror();
    RESOLVE(dgesvd, dgesvd_)
    RESOLVE(dgeqr2, dgeqr2_)
    RESOLVE(dorg2r, dorg2r_)
#undef RESOLVE
    if (!err)
        return 0;
    snprintf(why, len, "cannot load LAPACK (%s): %s", soname, err);
    if (h)
        dlclose(h);
    return -1;
}

static struct {
    pthread_once_t once;
    int rc;
    char why[512];
} loaded = {PTHREAD_ONCE_INIT, 0, ""};

static void load_once(void)
{
    loaded.rc = lapack_load_from(LAPACK_SONAME, &lapack, loaded.why, sizeof loaded.why);
}

int lapack_load(char *why, size_t len)
{
    pthread_once(&loaded.once, load_once);
    if (loaded.rc < 0)
        snprintf(why, len, "%s", loaded.why);
    return loaded.rc;
}
