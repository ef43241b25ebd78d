/* Yielding waits for the tool's traffic (see own.h). */
#include "own.h"

#include <sched.h>
#include <string.h>
#include <time.h>

#include "tool/base/base.h"

#define YIELD_FOR 200e-6 /* seconds a wait only yields; then it sleeps ... */
#define SLEEP_MAX 1e-3   /* ... an eighth of the time waited so far, at most this long */

/* Give the CPU away between two polls of a wait that began at t0. A rank that has waited
 * long waits for a rank that is not running: sleeping leaves the cores to the ranks that
 * work (yielding alone keeps the waiter runnable, and 8 ranks on 2 cores share them), and
 * adds at most an eighth to the wait. */
static void pause_since(double t0)
{
    double waited = clk_now() - t0;
    if (waited < YIELD_FOR) {
        sched_yield();
        return;
    }
    double s = waited / 8 < SLEEP_MAX ? waited / 8 : SLEEP_MAX;
    nanosleep(&(struct timespec){0, (long)(s * 1e9)}, NULL);
}

int yw_wait(MPI_Request *r)
{
    int done = 0, rc;
    double t0 = clk_now();
    while ((rc = own_Test(r, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        pause_since(t0);
    return rc;
}

void yw_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int found = 0;
    double t0 = clk_now();
    while (own_Iprobe(source, tag, comm, &found, status) == MPI_SUCCESS && !found)
        pause_since(t0);
}

/* A started collective's code, or its completion's: its request waited for when it started. */
static int finish(int rc, MPI_Request *r)
{
    return rc == MPI_SUCCESS ? yw_wait(r) : rc;
}

/* An intra-communicator of one rank: nobody to wait for, and no MPI call of tardy's, which
 * would run the progress engine (a singleton's MPICH, once it got SIGUSR1, blocks there
 * waiting for a process manager) or show among the program's calls. */
static int alone(MPI_Comm comm)
{
    int inter = 0, size = 0;
    return own_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter &&
           own_Comm_size(comm, &size) == MPI_SUCCESS && size == 1;
}

int yw_barrier(MPI_Comm comm)
{
    if (alone(comm))
        return MPI_SUCCESS;
    MPI_Request r;
    return finish(own_Ibarrier(comm, &r), &r);
}

int yw_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (alone(comm))
        return MPI_SUCCESS;
    MPI_Request r;
    return finish(own_Ibcast(buf, count, type, root, comm, &r), &r);
}

int yw_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm)
{
    int bytes = 0;
    if (alone(comm) && own_Type_size(type, &bytes) == MPI_SUCCESS) {
        if (in != MPI_IN_PLACE)
            memcpy(out, in, (size_t)count * (size_t)bytes);
        return MPI_SUCCESS;
    }
    MPI_Request r;
    return finish(own_Iallreduce(in, out, count, type, op, comm, &r), &r);
}

int yw_comm_dup(MPI_Comm comm, MPI_Comm *copy)
{
    MPI_Request r;
    return finish(own_Comm_idup(comm, copy, &r), &r);
}
