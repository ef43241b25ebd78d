/* Preloaded in front of tardy: counts the nonblocking collectives that reach PMPI while an
 * MPI_Comm_idup is in flight on their communicator, and the idups that start while another
 * nonblocking collective is, and prints the count per rank at exit, "collectives overlapping
 * an idup: rank N: C". Open MPI 4.1 starts the later rounds of an idup's communicator id
 * agreement from its progress engine, so that such overlaps can meet in another order on
 * another rank (Open MPI issue 2025; tool/waits/comm.c makes its copies one collective at a
 * time there). A request leaves the table when MPI_Test or MPI_Wait completes it (tardy's
 * yielding waits test). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

#define IN_FLIGHT_MAX 256

static struct {
    MPI_Request req;
    MPI_Comm comm;
    int idup;
} flight[IN_FLIGHT_MAX];
static int nflight, rank = -1;
static long overlaps;

#define NEXT(name)                                                                           \
    static __typeof__(&name) next;                                                           \
    if (!next)                                                                               \
    next = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

/* A collective starting on comm (an idup or not): does it overlap one in flight? */
static void starting(MPI_Comm comm, int idup)
{
    for (int i = 0; i < nflight; i++)
        if (flight[i].comm == comm && (idup || flight[i].idup)) {
            overlaps++;
            return;
        }
}

static void started(int rc, MPI_Request req, MPI_Comm comm, int idup)
{
    if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL && nflight < IN_FLIGHT_MAX)
        flight[nflight++] = (__typeof__(flight[0])){req, comm, idup};
}

static void done(MPI_Request req)
{
    for (int i = 0; i < nflight; i++)
        if (flight[i].req == req) {
            flight[i] = flight[--nflight];
            return;
        }
}

int PMPI_Comm_idup(MPI_Comm c, MPI_Comm *n, MPI_Request *r)
{
    NEXT(PMPI_Comm_idup);
    starting(c, 1);
    int rc = next(c, n, r);
    started(rc, *r, c, 1);
    return rc;
}

int PMPI_Iallreduce(const void *s, void *b, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c,
                    MPI_Request *r)
{
    NEXT(PMPI_Iallreduce);
    starting(c, 0);
    int rc = next(s, b, n, t, o, c, r);
    started(rc, *r, c, 0);
    return rc;
}

int PMPI_Ibarrier(MPI_Comm c, MPI_Request *r)
{
    NEXT(PMPI_Ibarrier);
    starting(c, 0);
    int rc = next(c, r);
    started(rc, *r, c, 0);
    return rc;
}

int PMPI_Ibcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r)
{
    NEXT(PMPI_Ibcast);
    starting(c, 0);
    int rc = next(b, n, t, root, c, r);
    started(rc, *r, c, 0);
    return rc;
}

int PMPI_Test(MPI_Request *r, int *flag, MPI_Status *status)
{
    NEXT(PMPI_Test);
    MPI_Request req = *r;
    int rc = next(r, flag, status);
    if (rc == MPI_SUCCESS && *flag)
        done(req);
    return rc;
}

int PMPI_Wait(MPI_Request *r, MPI_Status *status)
{
    NEXT(PMPI_Wait);
    MPI_Request req = *r;
    int rc = next(r, status);
    if (rc == MPI_SUCCESS)
        done(req);
    return rc;
}

int PMPI_Init(int *argc, char ***argv)
{
    NEXT(PMPI_Init);
    int rc = next(argc, argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rc;
}

__attribute__((destructor)) static void report(void)
{
    if (rank >= 0)
        fprintf(stderr, "collectives overlapping an idup: rank %d: %ld\n", rank, overlaps);
}
