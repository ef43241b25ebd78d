/* MPI_T performance variables per call site (TARDY_PVAR_COUNTERS) with known changes: in each
 * pair of ranks the odd one sends MSGS small messages on MPI_COMM_WORLD while its partner waits
 * in the marked barrier ("arrive"), so the partner's queue of unexpected messages grows there by
 * MSGS, and shrinks by one in each marked receive ("drain"). The odd rank starts sending 300 ms
 * after the partner's synchronous "go" returned, and waits in a receive until the partner has
 * drained its queue: nothing else reaches the even rank meanwhile. Odd rank counts: the last
 * rank does nothing. */
#include <mpi.h>
#include <unistd.h>

#define MSGS 5

int main(int argc, char **argv)
{
    int rank, size, go = 1, done = 1, msg[MSGS];
    MPI_Comm pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
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
    MPI_Comm_free(&pair);
    MPI_Finalize();
    return 0;
}
