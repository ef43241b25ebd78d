/* Preloaded in front of tardy: counts the blocking collective calls and the point-to-point
 * sends that reach the PMPI layer (the program's through tardy's wrappers, and tardy's own) and
 * prints the counts per rank at exit, "blocking collectives: rank N: C" and "point-to-point
 * sends: rank N: C". Waiting in a blocking collective busy-polls, which on an oversubscribed
 * node costs tens of milliseconds each; tardy's own start-up and finalize use nonblocking
 * ones. With wait states on, tardy's own sends are the batches of its timestamps: about one
 * for every WS_PB_RECS sends of the program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static long count, sends;
static int rank = -1;

#define NEXT_COUNTING(name, counter)                                                         \
    static __typeof__(&name) next;                                                           \
    if (!next)                                                                               \
        next = (__typeof__(&name))dlsym(RTLD_NEXT, #name);                                   \
    counter++
#define NEXT(name) NEXT_COUNTING(name, count)
#define NEXT_SEND(name) NEXT_COUNTING(name, sends)

int PMPI_Send(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    NEXT_SEND(PMPI_Send);
    return next(b, n, t, dest, tag, c);
}

int PMPI_Ssend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    NEXT_SEND(PMPI_Ssend);
    return next(b, n, t, dest, tag, c);
}

int PMPI_Isend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
               MPI_Request *r)
{
    NEXT_SEND(PMPI_Isend);
    return next(b, n, t, dest, tag, c, r);
}

int PMPI_Issend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                MPI_Request *r)
{
    NEXT_SEND(PMPI_Issend);
    return next(b, n, t, dest, tag, c, r);
}

int PMPI_Barrier(MPI_Comm c)
{
    NEXT(PMPI_Barrier);
    return next(c);
}

int PMPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    NEXT(PMPI_Bcast);
    return next(b, n, t, root, c);
}

int PMPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    NEXT(PMPI_Allreduce);
    return next(s, r, n, t, o, c);
}

int PMPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{
    NEXT(PMPI_Reduce);
    return next(s, r, n, t, o, root, c);
}

int PMPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                int root, MPI_Comm c)
{
    NEXT(PMPI_Gather);
    return next(s, sn, st, r, rn, rt, root, c);
}

int PMPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                   MPI_Comm c)
{
    NEXT(PMPI_Allgather);
    return next(s, sn, st, r, rn, rt, c);
}

int PMPI_Comm_dup(MPI_Comm c, MPI_Comm *n)
{
    NEXT(PMPI_Comm_dup);
    return next(c, n);
}

int PMPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n)
{
    NEXT(PMPI_Comm_split);
    return next(c, color, key, n);
}

int PMPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *n)
{
    NEXT(PMPI_Comm_split_type);
    return next(c, type, key, i, n);
}

int PMPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n)
{
    NEXT(PMPI_Comm_create);
    return next(c, g, n);
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
        fprintf(stderr, "blocking collectives: rank %d: %ld\n"
                        "point-to-point sends: rank %d: %ld\n", rank, count, rank, sends);
}
