/* Persistent requests: the bytes and partner each MPI_Start moves. MPI_*_init records them
 * for the request it creates (nothing moves then), MPI_Start/Startall count them on the call
 * that starts the transfer, MPI_Request_free forgets the request. */
#ifndef TARDY_PERSISTENT_H
#define TARDY_PERSISTENT_H

#include <mpi.h>
#include <stdint.h>

#include "tool/core/core.h"

/* After MPI_X_init made request r for the call c (c's dest or src, comm and tag are set):
 * each start of r moves bytes. */
void pst_add(MPI_Request r, const struct ev_call *c, int64_t bytes);

/* MPI_Start(all) of n requests: their bytes go to c, and with one request its partner too.
 * reqs may be NULL (handles that cannot be converted): nothing is counted. */
void pst_start(struct ev_call *c, int n, const MPI_Request *reqs);

/* MPI_Request_free(r): forget r if it was persistent. */
void pst_forget(MPI_Request r);

#endif
