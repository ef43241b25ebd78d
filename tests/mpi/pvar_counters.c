/* MPI_T performance variables per call site (TARDY_PVAR_COUNTERS) with known changes: in each
 * pair of ranks the odd one sends MSGS small messages on MPI_COMM_WORLD while its partner waits
 * in the marked barrier ("arrive"), so the partner's queue of unexpected messages grows there by
 * MSGS, and shrinks by one in each marked receive ("drain"). The odd rank starts sending 300 ms
 * after the partner's synchronous "go" returned, and waits in a receive until the partner has
 * drained its queue. Then every rank tells rank 0 it is done and waits for rank 0's release,
 * into receives posted before the pairs started: no message reaches a rank unexpectedly while
 * a pair is at work except the MSGS (not even tardy's own at finalize, from a pair that ended
 * early). With an odd number of ranks the last one only waits. */
#include <mpi.h>
#include <unistd.h>

#define MSGS 5
#define MAX_RANKS 64

int main(int argc, char **argv)
{
    int rank, size, go = 1, done = 1, msg[MSGS], tok[MAX_RANKS], n = 0;
    MPI_Request fin[MAX_RANKS];
    MPI_Comm pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 1; rank == 0 && r < size && r <= MAX_RANKS; r++, n++)
        MPI_Irecv(&tok[n], 1, MPI_INT, r, 99, MPI_COMM_WORLD, &fin[n]);
    if (rank > 0)
        MPI_Irecv(&tok[n++], 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &fin[0]);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    if (rank % 2 == 0 && rank + 1 < size) {
        MPI_Ssend(&go, 1, MPI_INT, 1, 0, pair); /* @site go */
        MPI_Barrier(pair); /* @site arrive */
        for (int i = 0; i < MSGS; i++)
            MPI_Recv(&msg[i], 1, MPI_INT, rank + 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site drain */
        MPI_Send(&done, 1, MPI_INT, 1, 1, pair); /* @site done */
    } else if (rank % 2 == 1) {
        MPI_Recv(&go, 1, MPI_INT, 0, 0, pair, MPI_STATUS_IGNORE); /* @site wait_go */
        usleep(300000);
        for (int i = 0; i < MSGS; i++) {
            msg[i] = i;
            MPI_Send(&msg[i], 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD); /* @site burst */
        }
        MPI_Barrier(pair); /* @site sent */
        MPI_Recv(&done, 1, MPI_INT, 0, 1, pair, MPI_STATUS_IGNORE); /* @site wait_done */
    }
    if (rank > 0)
        MPI_Send(&done, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        MPI_Wait(&fin[i], MPI_STATUS_IGNORE);
    for (int r = 1; rank == 0 && r < size; r++)
        MPI_Send(&done, 1, MPI_INT, r, 99, MPI_COMM_WORLD);
    MPI_Comm_free(&pair);
    MPI_Finalize();
    return 0;
}
