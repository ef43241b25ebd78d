/* Wait states of blocking collectives exchanged in batches (WS_BATCH = 64 calls per
 * communicator, tool/waits/batch.c), with ground truth by construction as in
 * waits_accuracy.c: a late rank at the call that fills a batch, at the first call of the
 * next batch on a communicator still open at finalize, at a communicator freed after two
 * calls, and in a run of calls whose waits all count.
 * Rank 0 prints "truth SCENARIO RANK SECONDS LATE" per rank, and "sum SCENARIO SECONDS" for
 * the run. */
#include <mpi.h>
#include <stdio.h>
#include "truth.h"

#define DELAY 0.15
#define BATCH 64

static int rank, size;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int last = size - 1;
    double x = 1, y = 0, e, m;
    MPI_Comm dup, freed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    /* the call that fills the batch of dup (its 64th) */
    for (int i = 0; i < BATCH - 1; i++)
        MPI_Barrier(dup); /* @site pre */
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_fill */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, dup); /* @site op_fill */
    m = latest(e);
    truth("fill", clampw(m - e), last);

    /* the first call of dup's next batch, exchanged at finalize: Late Broadcast */
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_open */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Bcast(&x, 1, MPI_DOUBLE, last, dup); /* @site op_open */
    {
        double re = e;
        MPI_Bcast(&re, 1, MPI_DOUBLE, last, MPI_COMM_WORLD); /* @site tbc */
        truth("open", rank != last ? clampw(re - e) : 0, last);
    }

    /* a communicator freed after two calls: Early Reduce, then one more call */
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &freed);
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_freed */
    if (rank == last && size > 1)
        busy(DELAY);
    e = now();
    MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, freed); /* @site op_freed */
    MPI_Barrier(freed); /* @site post */
    m = latest(rank == 0 ? 0 : e);
    truth("freed", rank == 0 && size > 1 ? clampw(m - e) : 0, last);
    MPI_Comm_free(&freed);

    /* a run of 40 Allreduce calls on world, a different rank late by 10 ms at each: every
     * wait counts (their sum over ranks) */
    double sum = 0;
    for (int i = 0; i < 40; i++) {
        if (rank == i % size)
            busy(0.01);
        e = now();
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @site op_run */
        double l = now(), me;
        m = latest(e);
        me = clampw((m < l ? m : l) - e);
        MPI_Allreduce(MPI_IN_PLACE, &me, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @site tsum */
        sum += me;
    }
    if (rank == 0)
        printf("sum run %.9f\n", sum);
    MPI_Finalize();
    return 0;
}
