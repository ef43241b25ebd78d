/* Waiting for the tool's own messages at finalize without spinning. MPICH busy-polls inside
 * blocking calls, so on an oversubscribed node a rank waiting for its children in the tree
 * reduction takes the CPU from the ranks still symbolizing their call paths (8 ranks on 2
 * cores: 0.9 s added to MPI_Finalize). These poll and give the CPU away between polls. */
#ifndef TARDY_YIELD_H
#define TARDY_YIELD_H

#include <mpi.h>

/* Complete request r (MPI_Test, sched_yield between tests). */
void yw_wait(MPI_Request *r);

/* MPI_Iprobe until a message matches, yielding between polls. */
void yw_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

#endif
