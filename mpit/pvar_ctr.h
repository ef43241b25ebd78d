/* MPI_T performance variables as counter columns (TARDY_PVAR_COUNTERS): integer variables
 * found by name after MPI_Init and read at every MPI enter and leave, like PAPI events; the
 * counter core (tool/counters.c) turns the readings into deltas per compute interval and per
 * MPI call site, and the reduction and the summary treat them like PAPI events. */
#ifndef TARDY_PVAR_CTR_H
#define TARDY_PVAR_CTR_H

#include "strbuf.h"

/* Elements a variable may have to be read at every call: one per peer of MPI_COMM_WORLD
 * (Open MPI's queue lengths) would cost O(ranks) per MPI call, so larger ones are left to
 * TARDY_PVARS (read once, at finalize). */
#define PC_MAX_ELEMS 64

/* After MPI_Init, on every rank (initialises MPI_T, which counts its users): find up to room
 * performance variables matching spec (globs, the first of each name in the library's order)
 * that are integer counters, levels, sizes or marks bound to nothing or to MPI_COMM_WORLD,
 * start them, and store "mpi_t:NAME" (malloc'd) in names[]. What is not read goes into note.
 * Returns how many were found. */
int pc_start(const char *spec, int room, char **names, struct strbuf *note);

/* Keep the variables i with keep[i] != 0 (those every rank can read), in order. */
void pc_keep(const int *keep);

/* Hot path: the value of every kept variable into out[i] (an array's elements summed, the
 * largest for high-water marks and percentages, the smallest for low-water marks); buf is
 * scratch of PC_MAX_ELEMS elements owned by the calling thread. */
void pc_read(long long *out, unsigned long long *buf);

/* Release the variables and MPI_T (at finalize, before MPI_Finalize). */
void pc_stop(void);

#endif
