/* Yielding waits for the tool's traffic (see own.h). */
#include "own.h"

#include <sched.h>


int yw_wait(MPI_Request *r)
{
    int done = 0, rc;
    while ((rc = own_Test(r, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        sched_yield();
    return rc;
}

void yw_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int found = 0;
    while (own_Iprobe(source, tag, comm, &found, status) == MPI_SUCCESS && !found)
        sched_yield();
}
