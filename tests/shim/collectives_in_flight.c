/* Preloaded in front of tardy: counts the nonblocking collectives (MPI_Comm_idup among them)
 * that reach PMPI while an MPI_Comm_idup is in flight on their communicator, and prints the
 * count per rank at exit, "collectives overlapping an idup: rank N: C". Open MPI 4.1 starts
 * the later rounds of an idup's communicator id agreement from its progress engine, so that
 * collectives started meanwhile on the same communicator can meet them in another order on
 * another rank (Open MPI issue 2025; tool/waits/comm.c makes its copies one collective at a
 * time there). Collectives started before the idup are matched before it everywhere. A
 * request leaves the table when MPI_Test, MPI_Wait, MPI_Testall or MPI_Waitall completes it
 * (those tardy completes its own with). */
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

/* A collective starting on comm: does an idup of comm run meanwhile? */
static void starting(MPI_Comm comm)
{
    for (int i = 0; i < nflight; i++)
        if (flight[i].comm == comm && flight[i].idup) {
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
    starting(c);
    int rc = next(c, n, r);
    started(rc, *r, c, 1);
    return rc;
}

int PMPI_Iallreduce(const void *s, void *b, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c,
                    MPI_Request *r)
{
    NEXT(PMPI_Iallreduce);
    starting(c);
    int rc = next(s, b, n, t, o, c, r);
    started(rc, *r, c, 0);
    return rc;
}

int PMPI_Ibarrier(MPI_Comm c, MPI_Request *r)
{
    NEXT(PMPI_Ibarrier);
    starting(c);
    int rc = next(c, r);
    started(rc, *r, c, 0);
    return rc;
}

int PMPI_Ibcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r)
{
    NEXT(PMPI_Ibcast);
    starting(c);
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

/* The n requests of an array completed. */
static void all_done(int n, const MPI_Request *before)
{
    for (int i = 0; i < n; i++)
        done(before[i]);
}

#define BEFORE(n, r)                                                                         \
    MPI_Request before[IN_FLIGHT_MAX];                                                      \
    int kept = (n) <= IN_FLIGHT_MAX;                                                         \
    for (int i = 0; kept && i < (n); i++)                                                    \
    before[i] = (r)[i]

int PMPI_Waitall(int n, MPI_Request *r, MPI_Status *st)
{
    NEXT(PMPI_Waitall);
    BEFORE(n, r);
    int rc = next(n, r, st);
    if (rc == MPI_SUCCESS && kept)
        all_done(n, before);
    return rc;
}

int PMPI_Testall(int n, MPI_Request *r, int *flag, MPI_Status *st)
{
    NEXT(PMPI_Testall);
    BEFORE(n, r);
    int rc = next(n, r, flag, st);
    if (rc == MPI_SUCCESS && *flag && kept)
        all_done(n, before);
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
