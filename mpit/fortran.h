/* Helpers for the generated Fortran entry points. */
#ifndef TARDY_FORTRAN_H
#define TARDY_FORTRAN_H

#include <mpi.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER is a C int");

/* A Fortran array of datatype handles as C handles. Where the handles are the same integers
 * (MPICH) this is a cast; elsewhere the byte counts of the w-variants are not computed. */
#if defined(MPICH)
#define f2c_types(a) ((const MPI_Datatype *)(a))
#else
#define f2c_types(a) ((const MPI_Datatype *)0)
/* The MPI library's own mpi_f08 entry point `name` (it exports no pmpi_ names for them). */
void (*f08_next(const char *name))(void);

#endif

/* The MPI library's own mpi_f08 entry point `name` (it exports no pmpi_ names for them). */
void (*f08_next(const char *name))(void);

#endif
