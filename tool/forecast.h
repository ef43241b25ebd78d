/* The Lua steps of the job: rank 0 checks the Lua scripts at MPI_Init and runs the user's
 * tardy.on_init hook there (control variables to set); at MPI_Finalize it runs the policy over
 * the run store plus this run and adds the predictions to the profile. Lua never runs inside
 * an MPI wrapper, and is not loaded at all without TARDY_LUA or TARDY_PREDICT. */
#ifndef TARDY_FORECAST_H
#define TARDY_FORECAST_H

#include "profile.h"

/* Whether this job asked for predictions (TARDY_PREDICT). */
int fc_wanted(void);

/* Rank 0 at MPI_Init, once MPI_T is up: load and check the scripts (a broken one is reported
 * once, here) and, when the user's script registered tardy.on_init, run it for this job.
 * describe fills in what the hook sees of the job (program, ranks, params, every control
 * variable), or returns -1 with the reason the hook cannot run; it is called only when there
 * is a hook. Returns the hook's settings ("NAME=VALUE" lines, malloc'd) or NULL. */
char *fc_start(int (*describe)(struct profile *job, char *why, size_t len));

/* Predict for this run p (reduced, on rank 0) with the runs in TARDY_STORE. Failures become
 * a warning and a note in p; the profile is never lost. */
void fc_predict(struct profile *p);

/* Write p into the run store when TARDY_STORE is set (creating the directory). */
void fc_store(struct profile *p);

#endif
