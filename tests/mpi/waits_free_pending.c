/* A communicator freed while a receive on it is pending (MPI completes it afterwards), as in
 * MPICH's comm/cmfree2: rank 1 posts an Irecv on a duplicate and frees it; rank 0 sends on it
 * synchronously DELAY_S after a barrier, then frees it. Rank 1's MPI_Wait waits DELAY_S for
 * the late sender, which tardy must still see (the piggyback is taken on the freed
 * communicator's kept shadow, not left unreceived). Prints "ok" on rank 1. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define DELAY_S 0.1

int main(int argc, char **argv)
{
    int rank, x = 7, y = 0;
    MPI_Comm comm;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        nanosleep(&(struct timespec){0, (long)(DELAY_S * 1e9)}, NULL);
        MPI_Ssend(&x, 1, MPI_INT, 1, 0, comm);
        MPI_Comm_free(&comm);
    } else if (rank == 1) {
        MPI_Request req;
        MPI_Irecv(&y, 1, MPI_INT, 0, 0, comm, &req);
        MPI_Comm_free(&comm);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* @site fp_wait */
        printf(y == 7 ? "ok\n" : "wrong value %d\n", y);
    } else {
        MPI_Comm_free(&comm);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
