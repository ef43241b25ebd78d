/* Late Sender against Late Sender / Wrong Order (Scalasca: a Late Sender wait is in the wrong
 * order when the same receiver later receives a message that was sent before the one it
 * waited for: that one could have been received first), with the truth by construction or
 * from the program's own clock. Rank 0 receives; a message's payload is its send's enter
 * time. Scenarios, ROUNDS each (markers as in "@site" comments):
 *   first      rank 1 sends tag 1 at once, then tag 2 DELAY late; rank 0 receives tag 1, then
 *              waits for tag 2 (o_first): plain Late Sender, the earlier one came first
 *   same       rank 1 sends tag 1 at once, then tag 2 DELAY late; rank 0 waits for tag 2
 *              first (o_same), then receives tag 1: wrong order
 *   later      (3 ranks or more) rank 1 sends DELAY late, the last rank 2 DELAY late; rank 0
 *              waits for rank 1 (o_later), then for the last rank: plain (sent later)
 *   wait       (3 ranks or more) rank 0 posts receives from rank 1 and the last rank; rank 1
 *              sends DELAY late, the last rank at once; rank 0 waits for rank 1's request
 *              first (o_wait), then the last rank's: wrong order
 *   halo       every rank exchanges with both ring neighbours, HALO rounds, at once, one rank
 *              in turn HALO_DELAY late to its sends: the others' waits are small, and
 *              whether one was in the wrong order depends on which neighbour's send entered
 *              first; each rank judges its wait for the left neighbour (o_halo) by the send
 *              times in the payloads. Without the late turn the whole was some 5 ms at 4
 *              ranks on 2 cores, where one preemption between the program's clock reading
 *              and tardy's is 10% of it (seen under Open MPI)
 * Rank 0 prints "order SCENARIO MARKER LS_SECONDS WO_SECONDS" (summed over ranks). */
#include <mpi.h>
/* GCC mistakes MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>

#include "truth.h"

#define ROUNDS 5
#define HALO 300
#define HALO_DELAY 100e-6
#define DELAY 0.02

static int rank, size, last;

static void print(const char *scenario, const char *marker, double ls, double wo)
{
    double in[2] = {ls, wo}, sum[2];
    MPI_Reduce(in, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("order %s %s %.9f %.9f\n", scenario, marker, sum[0], sum[1]);
}

/* Rank 1's two sends: tag 1 at once, tag 2 DELAY later. */
static void two_sends(void)
{
    double se = now();
    MPI_Send(&se, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    busy(DELAY);
    se = now();
    MPI_Send(&se, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
}

/* first and same: rank 0 receives tag 2 second (first) or first (same). */
static void same_source(int wrong)
{
    double ls = 0, se, x;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            two_sends();
        } else if (rank == 0 && !wrong) {
            MPI_Recv(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double e = now();
            MPI_Recv(&se, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site o_first */
            ls += clampw(se - e);
        } else if (rank == 0) {
            double e = now();
            MPI_Recv(&se, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site o_same */
            ls += clampw(se - e);
            MPI_Recv(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    print(wrong ? "same" : "first", wrong ? "o_same" : "o_first", wrong ? 0 : ls, wrong ? ls : 0);
}

/* later and wait: two senders, rank 1 DELAY late, the last rank 2 DELAY late (later) or at
 * once (wait, received through requests). On a loaded machine a sender may be preempted for
 * longer than DELAY: the truth is judged by the send times. */
static void two_sources(int wrong)
{
    double ls = 0, wo = 0, se, x;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1 || rank == last) {
            busy(rank == 1 ? DELAY : wrong ? 0 : 2 * DELAY);
            se = now();
            MPI_Send(&se, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
        } else if (rank == 0 && !wrong) {
            double e = now();
            MPI_Recv(&se, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site o_later */
            double w = clampw(se - e);
            MPI_Recv(&x, 1, MPI_DOUBLE, last, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            *(x < se ? &wo : &ls) += w;
        } else if (rank == 0) {
            MPI_Request r[2];
            MPI_Irecv(&se, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(&x, 1, MPI_DOUBLE, last, 3, MPI_COMM_WORLD, &r[1]);
            double e = now();
            MPI_Wait(&r[0], MPI_STATUS_IGNORE); /* @site o_wait */
            double w = clampw(se - e);
            MPI_Wait(&r[1], MPI_STATUS_IGNORE);
            *(x < se ? &wo : &ls) += w;
        }
    }
    print(wrong ? "wait" : "later", wrong ? "o_wait" : "o_later", ls, wo);
}

/* halo: the wait for the left neighbour is in the wrong order when the right one's send
 * entered first (its message, received next, could have been received first). */
static void halo(void)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double ls = 0, wo = 0, inl, inr;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < HALO; i++) {
        MPI_Request r[4];
        MPI_Irecv(&inl, 1, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&inr, 1, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &r[1]);
        if (i % size == rank)
            busy(HALO_DELAY);
        double se = now();
        MPI_Isend(&se, 1, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &r[2]);
        double se2 = now();
        MPI_Isend(&se2, 1, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &r[3]);
        double e = now();
        MPI_Wait(&r[0], MPI_STATUS_IGNORE); /* @site o_halo */
        double l = now();
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        MPI_Waitall(2, r + 2, MPI_STATUSES_IGNORE);
        double w = clampw((inl < l ? inl : l) - e);
        if (inr < inl)
            wo += w;
        else
            ls += w;
    }
    print("halo", "o_halo", ls, wo);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    last = size - 1;
    if (size >= 2) {
        same_source(0);
        same_source(1);
        if (size >= 3) {
            two_sources(0);
            two_sources(1);
        }
        halo();
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
