/* The report at finalize: this rank's rows, the tree reduction, predictions and the run
 * store. */
#ifndef TARDY_REPORT_H
#define TARDY_REPORT_H

#include <mpi.h>

#include "tool/profile/profile.h"

/* ---- collect.c ----
 * At finalize: turn this process's per-thread tables into rows keyed by symbolized call
 * sites, one rank's worth, ready for the reduction. */
/* Fill rs with this rank's MPI, interval and per-rank rows (and the MPI library's memory when
 * memory is set). wall is the rank's time from MPI_Init to MPI_Finalize. Returns 0, or -1
 * when memory ran out (rs then holds what fit). */
int collect_rank(struct rowset *rs, int rank, double wall, int memory);

/* Add this rank's value v of the per-rank metric name (a ROW_RANK row) to rs; -1 when
 * memory ran out. */
int collect_rank_metric(struct rowset *rs, const char *name, double v, int rank);

/* ---- host_load.c ----
 * How crowded this rank's host is: the ranks on it and its online CPUs, as per-rank metrics
 * that the tree reduction carries like any other (no array over ranks): host_ranks, host_cpus
 * and ranks_per_cpu, whose max above 1 means ranks outnumber the CPUs they run on. */
/* The ranks of MPI_COMM_WORLD on this host as the MPI library's launcher told this process
 * (Hydra's MPI_LOCALNRANKS, Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE); 0 when it did not. */
int host_load_launcher_ranks(void);

/* Add the metrics to rs. host_ranks: the launcher's count, when every rank of comm (a world
 * copy) has one; 0: collective over comm, the ranks sharing memory with this one are
 * counted. Returns 0, or -1 when memory ran out or the communicator could not be split (no
 * rows then). */
int host_load_rows(struct rowset *rs, MPI_Comm comm, int rank, int host_ranks);

/* on: collect_rank keeps its symbolizer and call-path names for the next collection (the
 * snapshots of TARDY_SNAPSHOT: symbolizing anew each time was most of their cost); off:
 * release them. Paths stay named as they were first symbolized. */
void collect_keep_names(int on);

/* Call-site strings ("MPI_Send@frames", as in the profile's rows) for other modules at
 * finalize: open, name sites (valid until the next call), close. */
struct names;
struct strbuf;
struct names *collect_names_open(void);
const char *collect_site_name(struct names *nm, uint64_t site, struct strbuf *into);
void collect_names_close(struct names *nm);

/* The application's frames among return addresses pcs[0..n), symbolized as a call path
 * "function file:line;function file:line" (malloc'd; NULL when memory is short). */
char *collect_path_text(const uintptr_t *pcs, int n);

/* ---- reduce.c ----
 * The reduction at finalize: every rank's rows are merged up a binomial tree (log2 P rounds)
 * on the tool's private communicator. A rank holds only its own rows and those merged from
 * its subtree, keyed by call site, so nothing grows with the number of ranks. */
/* Merge rs over all ranks of comm; afterwards rank 0's rs holds the result (other ranks'
 * contents are unspecified). Returns 0, or -1 when a message could not be built or read
 * (the data of that subtree is then missing and a warning says so). */
int red_tree(struct rowset *rs, MPI_Comm comm);

/* comm has one rank: the reductions then make no MPI call, so tardy adds no progress of the
 * library's after MPI_Finalize began (after a signal it handles itself, MPICH's SIGUSR1
 * handler makes a singleton's next progress ask for a process manager it does not have, and
 * wait for it forever). */
int red_alone(MPI_Comm comm);

/* Linear histogram of one per-rank value v over [min, max] of all ranks, into rank 0's
 * lo, hi and bins: started (the range's reduction, collective over comm) before the tree
 * reduction, so that it advances while the ranks wait there, and finished after it. */
struct red_hist {
    double v, ends[2], all[2];
    MPI_Comm comm;
    MPI_Request r;
};
void red_hist_start(struct red_hist *h, double v, MPI_Comm comm);
void red_hist_finish(struct red_hist *h, double *lo, double *hi, uint64_t bins[RANK_HIST_BINS]);

/* ---- forecast.c ----
 * The Lua steps of the job: rank 0 checks the Lua scripts at MPI_Init and runs the user's
 * tardy.on_init hook there (control variables to set); at MPI_Finalize it runs the policy over
 * the run store plus this run and adds the predictions to the profile. Lua never runs inside
 * an MPI wrapper, and is not loaded at all without TARDY_LUA or TARDY_PREDICT. */
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
