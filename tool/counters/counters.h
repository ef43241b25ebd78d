/* Counters per compute interval and per MPI call site: PAPI events (TARDY_PAPI) and MPI_T
 * performance variables (TARDY_PVAR_COUNTERS, pvar_ctr.c) share the columns. Each thread
 * has its own event set and reads the columns at every MPI enter and leave into fixed arrays;
 * the deltas are summed into per-thread tables keyed like the event core's. With neither
 * option set PAPI is never initialised and no thread has counter state (the hot path tests
 * one pointer). */
#ifndef TARDY_COUNTERS_H
#define TARDY_COUNTERS_H

#include <mpi.h>
#include <stdint.h>

#include "tool/profile/profile.h"
#include "tool/base/base.h"

/* ---- pvar_ctr.c ----
 * MPI_T performance variables as counter columns (TARDY_PVAR_COUNTERS): integer variables
 * found by name after MPI_Init and read at every MPI enter and leave, like PAPI events; the
 * counter core (counters.c) turns the readings into deltas per compute interval and per
 * MPI call site, and the reduction and the summary treat them like PAPI events. */
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

/* ---- counters.c ---- */
/* Deltas of one site (k1 = call site, k2 = 0) or interval (k1 = site before, k2 = after). */
struct ctr_row {
    uint64_t k1, k2;
    int64_t v[PROF_COUNTERS];
};

struct ctr_thread {
    int eventset;          /* PAPI's, PAPI_NULL without PAPI events */
    long long at_enter[PROF_COUNTERS], at_leave[PROF_COUNTERS], last[PROF_COUNTERS];
    unsigned long long pvar_buf[PC_MAX_ELEMS]; /* scratch for reading a performance variable */
    struct table mpi, intervals;
};

void ctr_row_init(void *row);

/* Number of counters every rank reads (0: counters are off). */
int ctr_count(void);

/* After MPI_Init, collective over comm: initialise PAPI, check the events of spec
 * ("EV,EV,...") on every rank, add the performance variables matching pvars (after the
 * events, in the columns left) and keep the columns available everywhere (one warning per
 * PAPI event that is not, from the lowest rank that lacks it, with PAPI's reason; missing
 * performance variables only go into the note). Returns ctr_count(). */
int ctr_start(const char *spec, const char *pvars, int multiplex, MPI_Comm comm);

/* Counter state for the calling thread (NULL when counters are off or its event set could
 * not be started; one warning then). */
struct ctr_thread *ctr_thread_new(void);

/* Hot path: read the counters when the PMPI call begins and when it ends. */
void ctr_enter(struct ctr_thread *c);
void ctr_leave(struct ctr_thread *c);
/* After the call: add the MPI call's deltas to site, and (when from != 0) the interval's
 * from the previous call's end to this call's start to (from, site). */
void ctr_account(struct ctr_thread *c, uint64_t from, uint64_t site);

/* The column names kept (valid after ctr_start: PAPI events, then "mpi_t:NAME"), and the
 * reasons the others were dropped (a note for the profile, or NULL). */
const char *ctr_name(int i);
const char *ctr_note(void);
int ctr_multiplexed(void);

#endif
