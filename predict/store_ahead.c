/* Reading the store's runs one ahead on a helper thread. */
#include "store_ahead.h"

#include <jansson.h>
#include <stdio.h>

int store_read_run(const char *path, struct profile *r, store_warn_fn warn, void *arg)
{
    char msg[4200], line[4300];
    profile_init(r);
    if (profile_read(r, path, msg, sizeof msg) == 0)
        return 0;
    snprintf(line, sizeof line, "skipping %s", msg);
    warn(line, arg);
    profile_free(r);
    return -1;
}

static void *read_ahead(void *arg)
{
    struct ahead *a = arg;
    profile_init(&a->run);
    a->rc = profile_read(&a->run, a->path, a->msg, sizeof a->msg);
    if (a->rc)
        profile_free(&a->run);
    return NULL;
}

void ahead_start(struct ahead *a, const char *path)
{
    ahead_drop(a);
    a->path = path;
    /* jansson seeds its hash tables on first use; seeded here, before a second thread can
     * race for it */
    json_object_seed(0);
    a->started = pthread_create(&a->thread, NULL, read_ahead, a) == 0;
}

int ahead_take(struct ahead *a, const char *path, struct profile *r, store_warn_fn warn,
               void *arg)
{
    if (!a->started || a->path != path) {
        ahead_drop(a);
        return store_read_run(path, r, warn, arg);
    }
    pthread_join(a->thread, NULL);
    a->started = 0;
    if (a->rc == 0) {
        *r = a->run;
        return 0;
    }
    char line[4300];
    snprintf(line, sizeof line, "skipping %s", a->msg);
    warn(line, arg); /* in order, from the thread that judges the runs */
    return -1;
}

void ahead_drop(struct ahead *a)
{
    if (!a->started)
        return;
    pthread_join(a->thread, NULL);
    a->started = 0;
    if (a->rc == 0)
        profile_free(&a->run);
}
