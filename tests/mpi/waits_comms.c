/* An application with 1000 communicators alive at once (MPICH has ids for 2048): wait states
 * on, tardy shadows only some of them (two ids each) and says so once; the program runs as
 * without tardy, and its point-to-point and collective traffic on the unshadowed ones too.
 * Prints "ok" on rank 0. */
#include <mpi.h>
#include <stdio.h>

#define N 1000

int main(int argc, char **argv)
{
    static MPI_Comm c[N];
    int rank, size, x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < N; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
    for (int i = 0; i < N; i += N / 4) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c[i]);
        if (size > 1 && rank == 0)
            MPI_Send(&x, 1, MPI_INT, 1, 0, c[i]);
        else if (size > 1 && rank == 1)
            MPI_Recv(&y, 1, MPI_INT, 0, 0, c[i], MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < N; i++)
        MPI_Comm_free(&c[i]);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}
