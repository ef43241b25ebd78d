/* The run store: a directory of JSON profiles, one per run, written atomically by
 * profile_write. Runs of one program are found by program name and call-site set. */
#ifndef TARDY_STORE_H
#define TARDY_STORE_H

#include "profile.h"

/* Called with one line for every file that is skipped (corrupt, foreign, other program). */
typedef void (*store_warn_fn)(const char *message, void *arg);

/* Load the runs in dir that belong to the program of like (its executable's base name and at
 * least half of the MPI call sites in common; by name alone when like has no call sites, as
 * at MPI_Init); like == NULL loads the runs of the program with the most runs in dir.
 * Returns the number of runs (array in *runs, caller frees with store_free), or -1 with a
 * message in err when dir cannot be read. */
int store_load(const char *dir, const struct profile *like, struct profile **runs,
               store_warn_fn warn, void *arg, char *err, size_t errlen);
void store_free(struct profile *runs, int n);

#endif
