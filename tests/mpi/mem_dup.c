/* MPI_Comm_dup/MPI_Comm_free pairs: FEW pairs at one pair of call sites, then MANY at another.
 * Memory the library keeps per pair would make the second site's live bytes grow with MANY.
 * Usage: mem_dup [FEW [MANY]] */
#include <mpi.h>
#include <stdlib.h>

static void pairs_few(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c); /* @site dupfew */
        MPI_Comm_free(&c); /* @site freefew */
    }
}

static void pairs_many(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c); /* @site dupmany */
        MPI_Comm_free(&c); /* @site freemany */
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    pairs_few(argc > 1 ? atoi(argv[1]) : 20);
    pairs_many(argc > 2 ? atoi(argv[2]) : 400);
    MPI_Finalize();
    return 0;
}
