/* Unexpected eager messages: rank 0 sends COUNT messages of SIZE bytes to rank 1 before rank 1
 * posts any receive, so the MPI library on rank 1 buffers COUNT x SIZE bytes. Rank 1 waits in
 * a barrier (progress pulls the messages in), sleeps, probes until all have arrived, then
 * receives them. Usage: mem_unexpected [COUNT [SIZE]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int count = argc > 1 ? atoi(argv[1]) : 64, bytes = argc > 2 ? atoi(argv[2]) : 1024;
    char *buf = calloc((size_t)count, (size_t)bytes);
    if (rank == 0 && size > 1) {
        for (int i = 0; i < count; i++)
            MPI_Send(buf + (size_t)i * bytes, bytes, MPI_CHAR, 1, i, MPI_COMM_WORLD); /* @site usend */
        MPI_Barrier(MPI_COMM_WORLD); /* @site usbarrier */
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD); /* @site urbarrier */
        int flag = 0;
        while (!flag) /* every message is unexpected until the last one has arrived */
            MPI_Iprobe(0, count - 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* @site uprobe */
        for (int i = 0; i < count; i++)
            MPI_Recv(buf + (size_t)i * bytes, bytes, MPI_CHAR, 0, i, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE); /* @site urecv */
    } else {
        MPI_Barrier(MPI_COMM_WORLD); /* @site uobarrier */
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
