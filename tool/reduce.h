/* The reduction at finalize: every rank's rows are merged up a binomial tree (log2 P rounds)
 * on the tool's private communicator. A rank holds only its own rows and those merged from
 * its subtree, keyed by call site, so nothing grows with the number of ranks. */
#ifndef TARDY_REDUCE_H
#define TARDY_REDUCE_H

#include <mpi.h>

#include "profile.h"

/* Merge rs over all ranks of comm; afterwards rank 0's rs holds the result (other ranks'
 * contents are unspecified). Returns 0, or -1 when a message could not be built or read
 * (the data of that subtree is then missing and a warning says so). */
int red_tree(struct rowset *rs, MPI_Comm comm);

/* Linear histogram of one per-rank value v over [min, max] of all ranks, into rank 0's
 * lo, hi and bins. */
void red_rank_histogram(double v, MPI_Comm comm, double *lo, double *hi,
                        uint64_t bins[RANK_HIST_BINS]);

#endif
