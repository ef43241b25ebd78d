/* Ranks of a communicator translated to MPI_COMM_WORLD ranks, through a small per-thread
 * cache (no table that grows with the communicator size). */
#ifndef TARDY_PEER_H
#define TARDY_PEER_H

#include <mpi.h>

/* Prepare the translation (world group); call once after MPI is initialised. */
void pr_init(void);
void pr_fini(void);

/* World rank of rank r of comm (of its remote group for an inter-communicator);
 * r itself when it cannot be translated. */
int pr_world(MPI_Comm comm, int r);

/* comm is about to be freed: its handle may be reused for another communicator. */
void pr_forget(MPI_Comm comm);

#endif
