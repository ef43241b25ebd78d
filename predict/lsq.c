/* Linear least squares through LAPACK's SVD solver. */
#include "predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK (Fortran): minimum-norm least squares by divide-and-conquer SVD. */
void dgelsd_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
             const int *ldb, double *s, const double *rcond, int *rank, double *work,
             const int *lwork, int *iwork, int *info);

void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
             const int *lda, double *s, double *u, const int *ldu, double *vt, const int *ldvt,
             double *work, const int *lwork, int *info);

const char *fit_strerror(int code)
{
    switch (code) {
    case FIT_OK: return "ok";
    case FIT_EINPUT: return "too few points, or values that are not finite";
    case FIT_ESINGULAR: return "the data do not determine the model";
    case FIT_ENOMEM: return "out of memory";
    case FIT_ENOCONV: return "the fit did not converge";
    }
    return "unknown error";
}

int fit_lsq(const double *X, int n, int k, const double *y, const double *w, double *coef,
            double *rss)
{
    if (n < k || k < 1)
        return FIT_EINPUT;
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]) || (w && !(w[i] >= 0 && isfinite(w[i]))))
            return FIT_EINPUT;
        for (int j = 0; j < k; j++)
            if (!isfinite(X[i * k + j]))
                return FIT_EINPUT;
    }
    int ldb = n, nrhs = 1, rank, info, lwork = -1;
    double *a = malloc((size_t)n * k * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    double *s = malloc((size_t)k * sizeof *s), query;
    int *iwork = malloc((size_t)(3 * k * 12 + 11 * k + 64) * sizeof *iwork);
    int rc = FIT_ENOMEM;
    if (!a || !b || !s || !iwork)
        goto out;
    for (int i = 0; i < n; i++) {
        double wi = w ? sqrt(w[i]) : 1.0;
        b[i] = y[i] * wi;
        for (int j = 0; j < k; j++)
            a[j * n + i] = X[i * k + j] * wi; /* column-major */
    }
    double rcond = 1e-12;
    dgelsd_(&n, &k, &nrhs, a, &n, b, &ldb, s, &rcond, &rank, &query, &lwork, iwork, &info);
    lwork = (int)query + 1;
    double *work = malloc((size_t)lwork * sizeof *work);
    if (!work)
        goto out;
    dgelsd_(&n, &k, &nrhs, a, &n, b, &ldb, s, &rcond, &rank, work, &lwork, iwork, &info);
    free(work);
    rc = info != 0 ? FIT_ESINGULAR : rank < k ? FIT_ESINGULAR : FIT_OK;
    if (rc == FIT_OK) {
        memcpy(coef, b, (size_t)k * sizeof *coef);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double p = 0;
            for (int j = 0; j < k; j++)
                p += X[i * k + j] * coef[j];
            sum += (w ? w[i] : 1.0) * (y[i] - p) * (y[i] - p);
        }
        *rss = sum;
    }
out:
    free(a);
    free(b);
    free(s);
    free(iwork);
    return rc;
}

int fit_leverage(const double *X, int n, int k, const double *w, double *h)
{
    if (n < 1 || k < 1 || k > n)
        return FIT_EINPUT;
    int lwork = 5 * (n + k) + 64, info, one = 1;
    double *a = malloc((size_t)n * k * sizeof *a), *u = malloc((size_t)n * k * sizeof *u);
    double *work = malloc((size_t)lwork * sizeof *work), s[64], vt;
    int rc = FIT_ENOMEM;
    if (!a || !u || !work || k > 64)
        goto out;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++)
            a[j * n + i] = X[i * k + j] * (w ? sqrt(w[i]) : 1.0); /* column-major */
    dgesvd_("S", "N", &n, &k, a, &n, s, u, &n, &vt, &one, work, &lwork, &info);
    rc = FIT_ESINGULAR;
    if (info != 0)
        goto out;
    for (int i = 0; i < n; i++) {
        h[i] = 0;
        for (int j = 0; j < k; j++)
            if (s[j] > 1e-12 * s[0])
                h[i] += u[j * n + i] * u[j * n + i];
    }
    rc = FIT_OK;
out:
    free(a);
    free(u);
    free(work);
    return rc;
}
