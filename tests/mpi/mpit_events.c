/* MPI_T events per call site, with tests/mpit/fake_events.c preloaded (it fires its events
 * inside PMPI_Barrier and PMPI_Send): barriers at one marked site, sends at another, so
 * tests/run.py can check the event counts per call path exactly. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD); /* @site ev_barrier */
    for (int i = 0; i < 4 && size > 1; i++) {
        if (rank == 0)
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); /* @site ev_send */
        else if (rank == 1)
            MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
