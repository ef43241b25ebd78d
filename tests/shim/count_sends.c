/* Preloaded in front of tardy: counts the point-to-point sends that reach the PMPI layer (the
 * program's through tardy's wrappers, and tardy's own) and prints the count per rank at exit,
 * "point-to-point sends: rank N: C". With wait states on, tardy's own are the batches of its
 * timestamps: about one for every WS_PB_RECS sends of the program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static long count;
static int rank = -1;

#define NEXT(name)                                                                           \
    static __typeof__(&name) next;                                                           \
    if (!next)                                                                               \
        next = (__typeof__(&name))dlsym(RTLD_NEXT, #name);                                   \
    count++

int PMPI_Send(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    NEXT(PMPI_Send);
    return next(b, n, t, dest, tag, c);
}

int PMPI_Ssend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    NEXT(PMPI_Ssend);
    return next(b, n, t, dest, tag, c);
}

int PMPI_Isend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
               MPI_Request *r)
{
    NEXT(PMPI_Isend);
    return next(b, n, t, dest, tag, c, r);
}

int PMPI_Issend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                MPI_Request *r)
{
    NEXT(PMPI_Issend);
    return next(b, n, t, dest, tag, c, r);
}

int PMPI_Init(int *argc, char ***argv)
{
    static __typeof__(&PMPI_Init) next;
    if (!next)
        next = (__typeof__(&PMPI_Init))dlsym(RTLD_NEXT, "PMPI_Init");
    int rc = next(argc, argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rc;
}

__attribute__((destructor)) static void report(void)
{
    if (rank >= 0)
        fprintf(stderr, "point-to-point sends: rank %d: %ld\n", rank, count);
}
