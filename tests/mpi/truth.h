/* How the wait-state test programs state their ground truth: each rank's true wait in a
 * scenario, gathered on rank 0 of the scenarios' communicator and printed as "truth SCENARIO
 * RANK SECONDS LATE" (tests/run.py reads them), and the latest enter time over the ranks. */
#ifndef TESTS_TRUTH_H
#define TESTS_TRUTH_H

#include <mpi.h>
#include <stdio.h>

#include "busy.h"

static inline double clampw(double w)
{
    return w > 0 ? w : 0;
}

/* late: the rank waited for */
static inline void truth_on(MPI_Comm comm, const char *name, double wait_of_me, int late)
{
    int rank, size;
    double all[64];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Gather(&wait_of_me, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm);
    if (rank == 0)
        for (int r = 0; r < size && r < 64; r++)
            printf("truth %s %d %.9f %d\n", name, r, all[r], late);
}

static inline void truth(const char *name, double wait_of_me, int late)
{
    truth_on(MPI_COMM_WORLD, name, wait_of_me, late);
}

/* The latest of the ranks' enter times e (in comm). */
static inline double latest_on(MPI_Comm comm, double e)
{
    double m;
    MPI_Allreduce(&e, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

static inline double latest(double e)
{
    return latest_on(MPI_COMM_WORLD, e);
}

#endif
