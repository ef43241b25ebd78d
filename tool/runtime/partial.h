/* Partial profiles (issue 17): what one rank leaves behind when it goes down before
 * MPI_Finalize, on MPI_Abort, a fatal or termination signal, and in periodic snapshots
 * (TARDY_SNAPSHOT) for the deaths no signal announces. Internal to tool/runtime. */
#ifndef TARDY_PARTIAL_H
#define TARDY_PARTIAL_H

#include "tool/profile/profile.h"

/* After MPI_Init, on every rank: meta holds the run's metadata (taken over, freed at
 * pt_finish); rank, t_start (clock at MPI_Init), memory (memory tracking on) and layer (the
 * ev_on value while collecting) as the runtime has them. Installs the signal handlers
 * (TARDY_PARTIAL) and starts the snapshot timer (TARDY_SNAPSHOT). */
void pt_start(struct profile *meta, int rank, double t_start, int memory, int layer);

/* Collection on (1) or off (0) under MPI_Pcontrol, without losing a due snapshot. */
void pt_collect(int on);

/* MPI_Abort(errorcode) was called from ra: write this rank's partial profile now. */
void pt_abort(int errorcode, void *ra);

/* MPI_Finalize: stop snapshots, give the signals back to the application's handlers and
 * remove this rank's partial profile (the complete one replaces it). */
void pt_finish(void);

/* With snapshots on, the per-rank metrics "snapshots" (how many were written) and
 * "snapshot_time" (seconds spent writing them), for the complete profile. */
void pt_rows(struct rowset *rs);

#endif
