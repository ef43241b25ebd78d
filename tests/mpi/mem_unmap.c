/* A mapping the MPI library makes and then unmaps piece by piece: the user-defined reduction
 * below runs inside MPI_Allreduce, so its mmap/munmap are charged like the library's own. Five
 * pages are mapped, then the last, the first and the middle one are unmapped: two pages stay
 * live, three are freed, all charged to the call that mapped them. Prints, per rank, whether
 * the reduction ran there (MPICH's algorithm decides). */
#include <mpi.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static int step, done[4];
static char *base;

static void op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
    long page = sysconf(_SC_PAGESIZE);
    if (done[step]++)
        return;
    if (step == 0)
        base = mmap(NULL, 5 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    else if (base != MAP_FAILED)
        munmap(base + (step == 1 ? 4 : step == 2 ? 0 : 2) * page, page);
}

int main(int argc, char **argv)
{
    int rank, x = 1, y;
    MPI_Op mop;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op_create(op, 1, &mop);
    step = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, mop, MPI_COMM_WORLD); /* @site map */
    step = 1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, mop, MPI_COMM_WORLD); /* @site tail */
    step = 2;
    MPI_Allreduce(&x, &y, 1, MPI_INT, mop, MPI_COMM_WORLD); /* @site head */
    step = 3;
    MPI_Allreduce(&x, &y, 1, MPI_INT, mop, MPI_COMM_WORLD); /* @site middle */
    MPI_Op_free(&mop);
    printf("unmap rank %d: %s\n", rank,
           done[0] && done[1] && done[2] && done[3] && base != MAP_FAILED ? "all" : "none");
    MPI_Finalize();
    return 0;
}
