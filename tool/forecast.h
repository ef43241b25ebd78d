/* The prediction step of the job (issue: Lua model families and policies): rank 0 checks the
 * Lua scripts at MPI_Init and, at MPI_Finalize, runs the policy over the run store plus this
 * run and adds the predictions to the profile. Lua never runs inside an MPI wrapper. */
#ifndef TARDY_FORECAST_H
#define TARDY_FORECAST_H

#include "profile.h"

/* Whether this job asked for predictions (TARDY_PREDICT). */
int fc_wanted(void);

/* Load and check the scripts once, early, so a broken script is reported at start. */
void fc_check(void);

/* Predict for this run p (reduced, on rank 0) with the runs in TARDY_STORE. Failures become
 * a warning and a note in p; the profile is never lost. */
void fc_predict(struct profile *p);

/* Write p into the run store when TARDY_STORE is set (creating the directory). */
void fc_store(struct profile *p);

#endif
