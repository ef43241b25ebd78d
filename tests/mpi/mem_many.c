/* More live blocks of the MPI library than the memory room's first table holds (4,096 slots,
 * 3/4 of them used before it doubles): the user-defined reduction below runs inside
 * MPI_Allreduce, so its BLOCKS mallocs of SIZE bytes are charged like the library's own; the
 * program frees every other one after the call, outside MPI, and the rest at the end. Prints,
 * per rank, whether the reduction ran there (MPICH's algorithm decides). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 10000
#define SIZE 777

static void *block[BLOCKS];
static int ran;

static void op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
    if (ran++)
        return;
    for (int i = 0; i < BLOCKS; i++)
        block[i] = malloc(SIZE);
}

int main(int argc, char **argv)
{
    int rank, x = 1, y;
    MPI_Op mop;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op_create(op, 1, &mop);
    MPI_Allreduce(&x, &y, 1, MPI_INT, mop, MPI_COMM_WORLD); /* @site blocks */
    for (int i = 0; i < BLOCKS; i += 2)
        free(block[i]);
    MPI_Op_free(&mop);
    printf("many rank %d: %s\n", rank, ran ? "ran" : "none");
    MPI_Finalize();
    for (int i = 1; i < BLOCKS; i += 2)
        free(block[i]);
    return 0;
}
