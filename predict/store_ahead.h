/* Reading the store's runs one ahead on a helper thread (store_ahead.c), for store.c. */
#ifndef PREDICT_STORE_AHEAD_H
#define PREDICT_STORE_AHEAD_H

#include <pthread.h>

#include "predict.h"
#include "tool/profile/profile.h"

/* The profile at path in full; -1 (named in a warning, "skipping ...") when it cannot be. */
int store_read_run(const char *path, struct profile *r, store_warn_fn warn, void *arg);

/* A run being read by a helper thread while the main thread reads and judges the one before
 * it (parsing JSON is most of loading a store, and the other core is idle): started with
 * ahead_start, collected in order with ahead_take, and never more than one at a time, so the
 * memory held is that of one more run. */
struct ahead {
    pthread_t thread;
    int started;
    const char *path;
    struct profile run;
    int rc;
    char msg[4200];
};

/* Start reading path; without a thread (none can be made), ahead_take reads it itself. */
void ahead_start(struct ahead *a, const char *path);

/* The run at path, read ahead if it was started, else now: store_read_run's result. */
int ahead_take(struct ahead *a, const char *path, struct profile *r, store_warn_fn warn,
               void *arg);

/* The run read ahead, not wanted after all: waited for and freed. */
void ahead_drop(struct ahead *a);

#endif
