/* Linear least squares and leverages through LAPACK's SVD. */
#include "predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK (Fortran): the singular value decomposition. */
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

/* The thin SVD of the weighted design matrix A (X's rows times sqrt(w_i)), A = U S V^T:
 * U (n x k, column-major) into u, the singular values into s and, unless vt is NULL, V^T
 * (k x k) into vt. a holds n x k + 5 (n + k) + 64 doubles of work space. */
static int weighted_svd(const double *X, int n, int k, const double *w, double *a, double *u,
                        double *s, double *vt)
{
    int lwork = 5 * (n + k) + 64, info, one = 1;
    double *work = a + (size_t)n * k, none;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++)
            a[j * n + i] = X[i * k + j] * (w ? sqrt(w[i]) : 1.0); /* column-major */
    dgesvd_("S", vt ? "S" : "N", &n, &k, a, &n, s, u, &n, vt ? vt : &none, vt ? &k : &one,
            work, &lwork, &info);
    return info;
}

/* The leverages h[n]: the squared rows of U over the singular values that are not zero. */
static void leverages(const double *u, const double *s, int n, int k, double *h)
{
    for (int i = 0; i < n; i++) {
        h[i] = 0;
        for (int j = 0; j < k; j++)
            if (s[j] > 1e-12 * s[0])
                h[i] += u[j * n + i] * u[j * n + i];
    }
}

static double *svd_space(int n, int k)
{
    return malloc((2 * (size_t)n * k + 5 * ((size_t)n + k) + 64) * sizeof(double));
}

/* Weighted least squares by one SVD: the coefficients V S^-1 U^T b, the residual sum of
 * squares and, unless h is NULL, the leverages. One decomposition gives both: the model
 * search fits and cross-validates hundreds of hypotheses a series. */
static int svd_fit(const double *X, int n, int k, const double *y, const double *w,
                   double *coef, double *rss, double *h)
{
    if (n < k || k < 1 || k > 64)
        return FIT_EINPUT;
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]) || (w && !(w[i] >= 0 && isfinite(w[i]))))
            return FIT_EINPUT;
        for (int j = 0; j < k; j++)
            if (!isfinite(X[i * k + j]))
                return FIT_EINPUT;
    }
    double *u = svd_space(n, k), s[64], vt[64 * 64];
    if (!u)
        return FIT_ENOMEM;
    int info = weighted_svd(X, n, k, w, u + (size_t)n * k, u, s, vt);
    int rc = info != 0 || !(s[k - 1] > 1e-12 * s[0]) ? FIT_ESINGULAR : FIT_OK;
    if (rc == FIT_OK) {
        double ub[64];
        for (int j = 0; j < k; j++) {
            ub[j] = 0;
            for (int i = 0; i < n; i++)
                ub[j] += u[j * n + i] * y[i] * (w ? sqrt(w[i]) : 1.0);
            ub[j] /= s[j];
        }
        for (int c = 0; c < k; c++) { /* V = vt^T; vt is k x k, column-major */
            coef[c] = 0;
            for (int j = 0; j < k; j++)
                coef[c] += vt[c * k + j] * ub[j];
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double p = 0;
            for (int j = 0; j < k; j++)
                p += X[i * k + j] * coef[j];
            sum += (w ? w[i] : 1.0) * (y[i] - p) * (y[i] - p);
        }
        *rss = sum;
        if (h)
            leverages(u, s, n, k, h);
    }
    free(u);
    return rc;
}

int fit_lsq(const double *X, int n, int k, const double *y, const double *w, double *coef,
            double *rss)
{
    return svd_fit(X, n, k, y, w, coef, rss, NULL);
}

int fit_lsq_leverage(const double *X, int n, int k, const double *y, const double *w,
                     double *coef, double *rss, double *h)
{
    return svd_fit(X, n, k, y, w, coef, rss, h);
}

int fit_leverage(const double *X, int n, int k, const double *w, double *h)
{
    if (n < 1 || k < 1 || k > n || k > 64)
        return FIT_EINPUT;
    double *u = svd_space(n, k), s[64];
    if (!u)
        return FIT_ENOMEM;
    int info = weighted_svd(X, n, k, w, u + (size_t)n * k, u, s, NULL);
    if (info == 0)
        leverages(u, s, n, k, h);
    free(u);
    return info == 0 ? FIT_OK : FIT_ESINGULAR;
}
