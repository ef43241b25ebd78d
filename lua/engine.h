/* The prediction engine: loads the shipped model families and policies and the user's
 * script into a sandbox, runs one policy over a set of runs for a set of targets and checks
 * what it returns. Used by rank 0 at MPI_Init (the check, and the user's tardy.on_init hook),
 * at MPI_Finalize and by `tardy predict`. */
#ifndef TARDY_LUA_ENGINE_H
#define TARDY_LUA_ENGINE_H

#include <stddef.h>

#include "tool/profile/profile.h"

struct engine_opts {
    const char *user_script; /* the user's Lua file, or NULL */
    const char *policy;      /* policy name, NULL for "default" */
    const char *targets;     /* "p=1024;p=4096,n=8192" */
    long budget;             /* VM instructions for the whole policy run */
    size_t mem_cap;          /* bytes */
};

/* The directory of shipped scripts (families/, policies/, lib/) next to the object
 * containing this code (<prefix>/share/tardy/lua for <prefix>/lib or <prefix>/bin). Static
 * storage. */
const char *engine_script_dir(void);

/* Scripts loaded at MPI_Init: checked, and the init hook run when there is one. */
struct engine;

/* Load the shipped scripts and the user's into a new sandbox. NULL with a message naming
 * the file and line in err when one fails to load. */
struct engine *engine_open(const struct engine_opts *o, char *err, size_t errlen);
void engine_close(struct engine *e);

/* 0 when the policy of the options is registered, else -1 with the known ones in err. */
int engine_check_policy(struct engine *e, char *err, size_t errlen);

/* Did the user's script register tardy.on_init? */
int engine_has_init_hook(struct engine *e);

/* Run tardy.on_init for the job starting (job: program, ranks, params, every control variable
 * in cvars) with the earlier runs (oldest first; they must outlive e). Its settings go to
 * *settings as "NAME=VALUE" lines sorted by name (malloc'd; NULL when it returned nil or an
 * empty table). Returns 0, or -1 with a message (file:line and a traceback, or what is wrong
 * with the result) in err; then nothing is set. */
int engine_init_hook(struct engine *e, const struct profile *job, const struct profile *runs,
                     int nruns, char **settings, char *err, size_t errlen);

/* Run the policy over runs (oldest first; the last is the current run when current_last)
 * and store the predictions in into. Returns 0; -1 with a message (file:line and a
 * traceback) in err when a script fails or returns something that is not a prediction, or
 * with the loader's reason when LAPACK cannot be loaded. */
int engine_predict(const struct engine_opts *o, const struct profile *runs, int nruns,
                   int current_last, struct profile *into, char *err, size_t errlen);

#endif
