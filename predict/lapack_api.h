/* LAPACK, loaded with dlopen on the first fit (lapack_load, predict.h). Linked in, liblapack,
 * the reference BLAS, libgfortran and libquadmath added 0.9 MiB to every rank's resident
 * memory, and their symbols to every MPI program's namespace, in jobs that predict nothing.
 * Loaded with RTLD_LOCAL, they stay out of it when a job does. */
#ifndef TARDY_LAPACK_API_H
#define TARDY_LAPACK_API_H

#include <stddef.h>

/* The three routines the fitting engine calls (Fortran calling convention). */
struct lapack_api {
    void (*dgesvd)(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
                   const int *lda, double *s, double *u, const int *ldu, double *vt,
                   const int *ldvt, double *work, const int *lwork, int *info);
    void (*dgeqr2)(const int *m, const int *n, double *a, const int *lda, double *tau,
                   double *work, int *info);
    void (*dorg2r)(const int *m, const int *n, const int *k, double *a, const int *lda,
                   const double *tau, double *work, int *info);
};

extern struct lapack_api lapack;

/* The same from the library named soname, every call: 0 and *api filled, or -1 and why. */
int lapack_load_from(const char *soname, struct lapack_api *api, char *why, size_t len);

#endif
