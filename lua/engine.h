/* The prediction engine: loads the shipped model families and policies and the user's
 * script into a sandbox, runs one policy over a set of runs for a set of targets and checks
 * what it returns. Used by rank 0 at MPI_Finalize and by `tardy predict`. */
#ifndef TARDY_LUA_ENGINE_H
#define TARDY_LUA_ENGINE_H

#include <stddef.h>

#include "profile.h"

struct engine_opts {
    const char *script_dir;  /* directory with families/ and policies/ (shipped scripts) */
    const char *user_script; /* the user's Lua file, or NULL */
    const char *policy;      /* policy name, NULL for "default" */
    const char *targets;     /* "p=1024;p=4096,n=8192" */
    long budget;             /* VM instructions for the whole policy run */
    size_t mem_cap;          /* bytes */
};

/* The directory of shipped scripts next to the object containing this code
 * (<prefix>/share/tardy/lua for <prefix>/lib or <prefix>/bin). Static storage. */
const char *engine_script_dir(void);

/* Load and check the scripts only (at MPI_Init). Returns 0, or -1 with a one-line message
 * naming the file and line in err. */
int engine_check(const struct engine_opts *o, char *err, size_t errlen);

/* Run the policy over runs (oldest first; the last is the current run when current_last)
 * and store the predictions in into. Returns 0; -1 with a message (file:line and a
 * traceback) in err when a script fails or returns something that is not a prediction. */
int engine_predict(const struct engine_opts *o, const struct profile *runs, int nruns,
                   int current_last, struct profile *into, char *err, size_t errlen);

#endif
