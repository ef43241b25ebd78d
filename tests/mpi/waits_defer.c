/* Wait states whose piggybacks are taken after the receive (tool/waits/p2p.c queues them), with
 * ground truth by construction as in waits_accuracy.c: a Waitall completing a receive and a
 * nonblocking collective, both late (the larger is the collective's), a receive on a communicator
 * freed right after it, and a Waitall completing more receives than the queue holds (one wait,
 * the largest), and two receives of one source and tag completed in the opposite order to
 * how they matched (each must get its own message's timestamp): by two Waits, with the first
 * posted a wildcard, and by a blocking receive while the first is pending. Rank 0 prints
 * "truth SCENARIO RANK SECONDS LATE" per rank. */
#include <mpi.h>
/* GCC mistakes MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>
#include "truth.h"

#define DELAY 0.15
#define MANY 40

static int rank, size;

/* the enter time of rank from's call (e there), to every rank */
static double from(double e, int r)
{
    MPI_Bcast(&e, 1, MPI_DOUBLE, r, MPI_COMM_WORLD); /* @site tbc */
    return e;
}

/* The last rank sends two messages with tag to rank 0 (the second DELAY later); rank 0
 * posts the receive of the first (from source src), then completes the receive of the
 * second first: with MPI_Wait (how 0), as a blocking MPI_Recv (how 1), or both persistent
 * (how 2, twice, so that each start takes its own place), or the first is matched by
 * MPI_Mprobe and received after the second (how 3). Prints the truth of the second's
 * waits. */
static void swapped(const char *name, int src, int tag, int how)
{
    int last = size - 1;
    double x = 1, y[2] = {0, 0}, e = 0, l = 0, waited = 0;
    MPI_Request r[2];
    if (how == 2 && rank == 0 && size > 1) {
        MPI_Recv_init(&y[0], 1, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, &r[0]);
        MPI_Recv_init(&y[1], 1, MPI_DOUBLE, last, tag, MPI_COMM_WORLD, &r[1]);
    }
    for (int round = 0; round < (how == 2 ? 2 : 1); round++) {
        MPI_Barrier(MPI_COMM_WORLD); /* @site sync_swap */
        if (rank == last && size > 1) {
            MPI_Send(&x, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD); /* @site swap_send1 */
            busy(DELAY);
            e = now();
            MPI_Send(&x, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD); /* @site swap_send2 */
        } else if (rank == 0 && size > 1 && how == 3) {
            MPI_Message msg;
            MPI_Mprobe(last, tag, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
            MPI_Irecv(&y[1], 1, MPI_DOUBLE, last, tag, MPI_COMM_WORLD, &r[1]);
            e = now();
            MPI_Wait(&r[1], MPI_STATUS_IGNORE); /* @site op_swap_mprobe */
            l = now();
            MPI_Mrecv(&y[0], 1, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
        } else if (rank == 0 && size > 1 && how == 1) {
            MPI_Irecv(&y[0], 1, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, &r[0]);
            e = now();
            MPI_Recv(&y[1], 1, MPI_DOUBLE, last, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site op_swap_recv */
            l = now();
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        } else if (rank == 0 && size > 1) {
            if (how == 2) {
                MPI_Start(&r[0]);
                MPI_Start(&r[1]);
            } else {
                MPI_Irecv(&y[0], 1, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, &r[0]);
                MPI_Irecv(&y[1], 1, MPI_DOUBLE, last, tag, MPI_COMM_WORLD, &r[1]);
            }
            e = now();
            if (how == 2)
                MPI_Wait(&r[1], MPI_STATUS_IGNORE); /* @site op_swap_persistent */
            else if (src == MPI_ANY_SOURCE)
                MPI_Wait(&r[1], MPI_STATUS_IGNORE); /* @site op_swap_any */
            else
                MPI_Wait(&r[1], MPI_STATUS_IGNORE); /* @site op_swap */
            l = now();
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        } else {
            e = now();
        }
        double se = from(e, last);
        waited += rank == 0 && size > 1 ? clampw((se < l ? se : l) - e) : 0;
    }
    truth(name, waited, last);
    if (how == 2 && rank == 0 && size > 1) {
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    }
}

/* A receive completed only after 300 later ones of the same source and tag: its place in
 * the posting order holds them back, up to tardy's bound (one warning). Rank 0 prints
 * "late completion ok" when every message came in order. */
static void late_completion(void)
{
    enum { N = 300 };
    int last = size - 1, first = -1, in = -1, ok = 1;
    if (rank == last && size > 1)
        for (int i = 0; i <= N; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
    if (rank == 0 && size > 1) {
        MPI_Request r;
        MPI_Irecv(&first, 1, MPI_INT, last, 11, MPI_COMM_WORLD, &r);
        for (int i = 1; i <= N; i++) {
            MPI_Recv(&in, 1, MPI_INT, last, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ok &= in == i;
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        printf("late completion %s\n", ok && first == 0 ? "ok" : "wrong");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int last = size - 1;
    double x = 1, y = 0, e = 0, l = 0, ei = 0, buf[MANY];
    MPI_Request r[MANY];

    /* Waitall of a receive (its sender a little late) and an Iallreduce (last later still):
     * one wait, the larger, the Iallreduce's, charged to the Waitall */
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_mix */
    r[0] = MPI_REQUEST_NULL;
    if (rank == last) {
        busy(DELAY / 20);
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD); /* @site mix_send */
    }
    if (rank == 0)
        MPI_Irecv(&y, 1, MPI_DOUBLE, last, 3, MPI_COMM_WORLD, &r[0]); /* @site mix_irecv */
    if (rank == last)
        busy(DELAY);
    ei = now();
    MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]); /* @site mix_iar */
    e = now();
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE); /* @site op_mix */
    l = now();
    {
        double m = from(ei, last);
        truth("mix", rank != last ? clampw((m < l ? m : l) - e) : 0, last);
    }

    /* Late Sender on a communicator freed right after the receive */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_freed */
    if (rank == last && size > 1) {
        busy(DELAY);
        e = now();
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 4, dup); /* @site freed_send */
    } else if (rank == 0 && size > 1) {
        e = now();
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 4, dup, MPI_STATUS_IGNORE); /* @site op_freed */
    } else {
        e = now();
    }
    MPI_Comm_free(&dup);
    {
        double se = from(e, last);
        truth("freed", rank == 0 && size > 1 ? clampw(se - e) : 0, last);
    }

    /* Waitall of MANY receives, the last sender late: one wait, the largest */
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_many */
    if (rank == last && size > 1) {
        busy(DELAY);
        for (int i = 0; i < MANY; i++) {
            e = now();
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 100 + i, MPI_COMM_WORLD); /* @site many_send */
        }
    } else if (rank == 0 && size > 1) {
        for (int i = 0; i < MANY; i++)
            MPI_Irecv(&buf[i], 1, MPI_DOUBLE, last, 100 + i, MPI_COMM_WORLD, &r[i]); /* @site many_irecv */
        e = now();
        MPI_Waitall(MANY, r, MPI_STATUSES_IGNORE); /* @site op_many */
        l = now();
    } else {
        e = now();
    }
    {
        double se = from(e, last);
        truth("many", rank == 0 && size > 1 ? clampw((se < l ? se : l) - e) : 0, last);
    }
    swapped("swap", last, 6, 0);
    swapped("swap_any", MPI_ANY_SOURCE, 7, 0);
    swapped("swap_recv", last, 8, 1);
    swapped("swap_persistent", last, 9, 2);
    swapped("swap_mprobe", last, 10, 3);
    late_completion();
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
