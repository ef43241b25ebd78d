/* Helpers for the generated Fortran entry points. */
#ifndef TARDY_FORTRAN_H
#define TARDY_FORTRAN_H

#include <mpi.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER is a C int");

/* A Fortran array of datatype (request) handles as C handles. Where the handles are the same
 * integers (MPICH) this is a cast; elsewhere the byte counts of the w-variants (of MPI_Startall)
 * are not computed. */
#if defined(MPICH)
#define f2c_types(a) ((const MPI_Datatype *)(a))
#define f2c_requests(a) ((const MPI_Request *)(a))
#else
#define f2c_types(a) ((const MPI_Datatype *)0)
#define f2c_requests(a) ((const MPI_Request *)0)
#endif

/* MPI 4.0 names Open MPI 4.1's C header lacks: the Fortran status length (its status is
 * ints and a size_t, six INTEGERs) and the mpi_f08 ignored status, whose entry points it
 * names differently (tardy's mpi_f08 wrappers are not reached there). */
#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
#ifndef MPI_F08_STATUS_IGNORE
#define MPI_F08_STATUS_IGNORE MPI_F_STATUS_IGNORE
#endif
#ifndef MPI_F08_STATUSES_IGNORE
#define MPI_F08_STATUSES_IGNORE MPI_F_STATUSES_IGNORE
#endif

/* The MPI library's own mpi_f08 entry point `name` (it exports no pmpi_ names for them). */
void (*f08_next(const char *name))(void);

#endif
