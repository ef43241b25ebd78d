/* Software-defined counters (PAPI SDE, libsde) incremented by known amounts in marked
 * intervals and inside one marked MPI call (an attribute copy callback runs inside
 * MPI_Comm_dup), so tests/run.py can check tardy's per-interval and per-call-site counter
 * totals exactly. With the argument "late" the last rank also spins 30 ms before each
 * after_work barrier, so the others wait there for a known cause. */
#include <mpi.h>
#include <sde_lib.h>
#include <stdlib.h>
#include <string.h>

static long long work, inmpi;

static int copy_attr(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key, (void)extra;
    inmpi += 500;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size, key, late = argc > 1 && !strcmp(argv[1], "late");
    papi_handle_t h = papi_sde_init("TARDYTEST");
    papi_sde_register_counter(h, "WORK", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                              &work);
    papi_sde_register_counter(h, "INMPI", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                              &inmpi);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3; i++) {
        MPI_Barrier(MPI_COMM_WORLD); /* @site before_work */
        work += 1000 * (rank + 1);
        for (double t0 = MPI_Wtime(); late && rank == size - 1 && MPI_Wtime() - t0 < 0.030;)
            ;
        MPI_Barrier(MPI_COMM_WORLD); /* @site after_work */
    }
    MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL);
    work += 7;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* @site dup */
    MPI_Comm_free(&dup);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
    MPI_Comm_free_keyval(&key);
    MPI_Finalize();
    return 0;
}
