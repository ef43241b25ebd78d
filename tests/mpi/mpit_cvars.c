/* The program's own MPI_T use next to tardy's: it reads a control variable (argv[1]: the tests
 * name each MPI's allreduce algorithm selector) through MPI_T after MPI_Init and every rank
 * prints it ("NAME=VALUE rank R"), so tests/run.py can see what the library itself holds after
 * TARDY_CVARS or tardy.on_init wrote it, then
 * finalizes MPI_T before tardy does and runs a few allreduces. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, provided, index, count;
    const char *name = argc > 1 ? argv[1] : "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS) {
        int value[16] = {0};
        MPI_T_cvar_read(h, value);
        printf("%s=%d rank %d\n", name, value[0], rank);
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    double x[4096] = {0};
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(MPI_IN_PLACE, x, 4096, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @site ar */
    MPI_Finalize();
    return 0;
}
