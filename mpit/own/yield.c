/* Yielding waits for the tool's traffic (see own.h). */
#include "own.h"

#include <sched.h>


void yw_wait(MPI_Request *r)
{
    int done = 0;
    while (own_Test(r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        sched_yield();
}

void yw_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int found = 0;
    while (own_Iprobe(source, tag, comm, &found, status) == MPI_SUCCESS && !found)
        sched_yield();
}

/* A started collective's code: its request waited for when it started. */
static int finish(int rc, MPI_Request *r)
{
    if (rc == MPI_SUCCESS)
        yw_wait(r);
    return rc;
}

int yw_barrier(MPI_Comm comm)
{
    MPI_Request r;
    return finish(own_Ibarrier(comm, &r), &r);
}

int yw_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request r;
    return finish(own_Ibcast(buf, count, type, root, comm, &r), &r);
}

int yw_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm)
{
    MPI_Request r;
    return finish(own_Iallreduce(in, out, count, type, op, comm, &r), &r);
}

int yw_comm_dup(MPI_Comm comm, MPI_Comm *copy)
{
    MPI_Request r;
    return finish(own_Comm_idup(comm, copy, &r), &r);
}
