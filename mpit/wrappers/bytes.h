/* Bytes moved by an MPI call, as seen from this process's buffers: count × type size for
 * point-to-point, one-sided and I/O; for collectives what this rank contributes (sent) and
 * what lands in its receive buffer (recv). MPI_IN_PLACE, MPI_ROOT/MPI_PROC_NULL roots of
 * inter-communicators and NULL type arrays are handled. */
#ifndef TARDY_BYTES_H
#define TARDY_BYTES_H

#include <mpi.h>
#include <stdint.h>

#include "tool/core/core.h"
#include "mpit/own/own.h"
#include "type_size.h"

static inline __attribute__((always_inline)) int64_t by_count(MPI_Count count,
                                                               MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    if (!ts_known(type, &size) && own_Type_size_x(type, &size) != MPI_SUCCESS)
        return 0;
    return (int64_t)(count * size);
}

/* Bytes actually received according to a status (0 when undefined). */
int64_t by_status_asked(const MPI_Status *st);
static inline int64_t by_status(const MPI_Status *st)
{
    return ts_ready() && ts_raw_status ? (int64_t)ts_status_field(st) : by_status_asked(st);
}

void by_bcast(struct ev_call *c, int count, MPI_Datatype t, int root, MPI_Comm comm);
void by_reduce(struct ev_call *c, int count, MPI_Datatype t, int root, MPI_Comm comm);
void by_allreduce(struct ev_call *c, int count, MPI_Datatype t);
void by_reduce_scatter(struct ev_call *c, const int recvcounts[], MPI_Datatype t,
                       MPI_Comm comm);
void by_reduce_scatter_block(struct ev_call *c, int recvcount, MPI_Datatype t, MPI_Comm comm);
void by_gather(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
               int rcount, MPI_Datatype rt, int root, MPI_Comm comm);
void by_gatherv(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                const int rcounts[], MPI_Datatype rt, int root, MPI_Comm comm);
void by_scatter(struct ev_call *c, int scount, MPI_Datatype st, const void *recvbuf,
                int rcount, MPI_Datatype rt, int root, MPI_Comm comm);
void by_scatterv(struct ev_call *c, const int scounts[], MPI_Datatype st, const void *recvbuf,
                 int rcount, MPI_Datatype rt, int root, MPI_Comm comm);
void by_allgather(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                  int rcount, MPI_Datatype rt, MPI_Comm comm);
void by_allgatherv(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                   const int rcounts[], MPI_Datatype rt, MPI_Comm comm);
void by_alltoall(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                 int rcount, MPI_Datatype rt, MPI_Comm comm);
void by_alltoallv(struct ev_call *c, const void *sendbuf, const int scounts[], MPI_Datatype st,
                  const int rcounts[], MPI_Datatype rt, MPI_Comm comm);
void by_alltoallw(struct ev_call *c, const void *sendbuf, const int scounts[],
                  const MPI_Datatype st[], const int rcounts[], const MPI_Datatype rt[],
                  MPI_Comm comm);
void by_neighbor(struct ev_call *c, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
                 MPI_Comm comm);
void by_neighborv(struct ev_call *c, const int scounts[], MPI_Datatype st,
                  const int rcounts[], MPI_Datatype rt, MPI_Comm comm);
void by_neighbor_allgatherv(struct ev_call *c, int scount, MPI_Datatype st,
                            const int rcounts[], MPI_Datatype rt, MPI_Comm comm);
void by_neighborw(struct ev_call *c, const int scounts[], const MPI_Datatype st[],
                  const int rcounts[], const MPI_Datatype rt[], MPI_Comm comm);

#endif
