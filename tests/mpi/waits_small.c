/* Small Late Sender waits against the known delay: in each round one rank answers the
 * other's message DELAY microseconds late (5, 10 and 50, ROUNDS rounds each, a call site per
 * delay), with its enter time in the answer; the ranks take turns. The answering rank's call
 * path must be unwound anew each time: its enter time must be read before that. Rank 0 prints, per delay,
 * each wait's waiting rank, its receive's enter time, the send's enter time and the receive's
 * leave time on the program's clock, as "small DELAY_US RANK E S L RANK E S L ..." (the test
 * applies tardy's clock offsets to them). Two ranks. */
#include <mpi.h>
#include <stdio.h>

#include "truth.h"

#define ROUNDS 400

static const int delays_us[] = {5, 10, 50};

/* The waiting rank's receive of the answer from peer for delay d (a call site each). */
static void recv_answer(int d, int peer, double *se)
{
    if (d == 0)
        MPI_Recv(se, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site s_5 */
    else if (d == 1)
        MPI_Recv(se, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site s_10 */
    else
        MPI_Recv(se, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site s_50 */
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x = 0, se, w[3 * ROUNDS / 2], all[3 * ROUNDS];
    for (int d = 0; size == 2 && d < 3; d++) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0, n = 0; i < ROUNDS; i++) {
            if (rank == i % 2) { /* this round's waiting rank */
                MPI_Send(&x, 1, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD);
                double e = now();
                recv_answer(d, 1 - rank, &se);
                w[n++] = e;
                w[n++] = se;
                w[n++] = now();
            } else {
                /* the answer at a new stack position each round: tardy's cache of call paths
                 * misses and the path is unwound (microseconds) in the send's wrapper */
                volatile char pad[16 + 16 * i];
                pad[0] = 0;
                x = pad[0];
                MPI_Recv(&x, 1, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                busy(delays_us[d] * 1e-6);
                se = now();
                MPI_Send(&se, 1, MPI_DOUBLE, 1 - rank, 1, MPI_COMM_WORLD);
            }
        }
        MPI_Gather(w, 3 * ROUNDS / 2, MPI_DOUBLE, all, 3 * ROUNDS / 2, MPI_DOUBLE, 0,
                   MPI_COMM_WORLD);
        if (rank == 0) {
            printf("small %d", delays_us[d]);
            for (int i = 0; i < ROUNDS; i++)
                printf(" %d %.9f %.9f %.9f", i / (ROUNDS / 2), all[3 * i], all[3 * i + 1],
                       all[3 * i + 2]);
            printf("\n");
        }
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
