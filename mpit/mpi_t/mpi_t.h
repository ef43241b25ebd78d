/* The MPI tools information interface (MPI_T), used alongside MPI: control variables written
 * (TARDY_CVARS, the Lua hook tardy.on_init) and recorded (TARDY_CVARS_RECORD), performance
 * variables read at finalize (TARDY_PVARS) and reduced over ranks, MPI_T events counted per
 * call site (MPI 4.0 libraries that have any). MPI_T_init_thread is reference-counted by
 * MPI, so the application may use MPI_T as well. */
#ifndef TARDY_MPI_T_H
#define TARDY_MPI_T_H

#include <mpi.h>
#include <stdint.h>

#include "tool/profile/profile.h"

/* After MPI_Init, on every rank: initialise MPI_T, write the TARDY_CVARS (all ranks write;
 * rank 0 warns about bad names and values), allocate and start the configured performance
 * variables, register for events. Does nothing when TARDY_MPIT=0. */
void mt_start(int rank);

/* Rank 0: every control variable it can read, with its value now, into p->cvars (for
 * tardy.on_init). -1 when MPI_T is not in use. */
int mt_cvars_now(struct profile *p);

/* Every rank of comm, whatever its options (a collective): rank 0 broadcasts settings
 * ("NAME=VALUE" lines from tardy.on_init, or NULL: none) and each rank writes them as it
 * writes TARDY_CVARS, recorded with the origin "lua"; rank 0 warns about each one that is
 * not written. One small broadcast when there is nothing to write. */
void mt_write_settings(const char *settings, MPI_Comm comm);

/* At finalize, before the reduction: this rank's performance variable values as ROW_PVAR
 * rows of rs. */
void mt_pvar_rows(struct rowset *rs, int rank);

/* Visit the MPI_T event counts of this process: event name, call site (0: not inside an MPI
 * call of the thread that got the event), count. */
void mt_for_each_event(void (*fn)(const char *event, uint64_t site, uint64_t n, void *arg),
                       void *arg);

/* Rank 0: the library's MPI_T inventory, the recorded control variables (values now) and
 * what was written, into p. */
void mt_describe(struct profile *p);

/* Release MPI_T (before MPI_Finalize). */
void mt_stop(void);

#endif
