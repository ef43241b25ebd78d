/* Linear least squares and leverages through LAPACK: a QR factorization, or the SVD where
 * the columns may be nearly dependent and for leverages alone (which allow them). */
#include "predict.h"
#include "lapack_api.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *fit_strerror(int code)
{
    switch (code) {
    case FIT_OK: return "ok";
    case FIT_EINPUT: return "too few points, or values that are not finite";
    case FIT_ESINGULAR: return "the data do not determine the model";
    case FIT_ENOMEM: return "out of memory";
    case FIT_ENOCONV: return "the fit did not converge";
    case FIT_ENOLAPACK: return "LAPACK cannot be loaded";
    }
    return "unknown error";
}

/* Is LAPACK there (loaded on the first fit)? Callers that report why ask lapack_load. */
static int loaded(void)
{
    char why[8];
    return lapack_load(why, sizeof why) == 0;
}

/* The square roots of the weights w[n] into sw, returned (NULL without weights). Once a fit:
 * in the loops over the design matrix's elements they were a fifth of a search's fits. */
static const double *root_weights(const double *w, int n, double *sw)
{
    if (!w)
        return NULL;
    for (int i = 0; i < n; i++)
        sw[i] = sqrt(w[i]);
    return sw;
}

/* The weighted design matrix A (X's rows times sqrt(w_i), sw[i]) into a, column-major. */
static void weighted_design(const double *X, int n, int k, const double *sw, double *a)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++)
            a[j * n + i] = X[i * k + j] * (sw ? sw[i] : 1.0);
}

/* The thin SVD of the weighted design matrix A = U S V^T: U (n x k, column-major) into u,
 * the singular values into s and, unless vt is NULL, V^T (k x k) into vt. a holds
 * n x k + 5 (n + k) + 64 doubles of work space. */
static int weighted_svd(const double *X, int n, int k, const double *sw, double *a, double *u,
                        double *s, double *vt)
{
    int lwork = 5 * (n + k) + 64, info, one = 1;
    double *work = a + (size_t)n * k, none;
    weighted_design(X, n, k, sw, a);
    lapack.dgesvd("S", vt ? "S" : "N", &n, &k, a, &n, s, u, &n, vt ? vt : &none,
                  vt ? &k : &one, work, &lwork, &info);
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

/* Work space of a fit: two n x k matrices and LAPACK's work (lsq_work doubles), then the n
 * roots of the weights (lsq_roots). */
static size_t lsq_work(int n, int k)
{
    return 2 * (size_t)n * k + 5 * ((size_t)n + k) + 64;
}

static double *lsq_space(int n, int k)
{
    return malloc((lsq_work(n, k) + (size_t)n) * sizeof(double));
}

static double *lsq_roots(double *space, int n, int k)
{
    return space + lsq_work(n, k);
}

/* The weighted right-hand side sqrt(w_i) y_i (sw[i] y_i) projected on the k orthonormal
 * columns of q (n x k, column-major), into qb. */
static void project(const double *q, int n, int k, const double *y, const double *sw,
                    double *qb)
{
    for (int j = 0; j < k; j++) {
        qb[j] = 0;
        for (int i = 0; i < n; i++)
            qb[j] += q[j * n + i] * y[i] * (sw ? sw[i] : 1.0);
    }
}

/* Least squares by the SVD: coef = V S^-1 U^T b; FIT_ESINGULAR when a singular value is
 * below 1e-12 of the largest. */
static int svd_solve(const double *X, int n, int k, const double *y, const double *sw,
                     double *space, double *coef, double *h)
{
    double *u = space, s[64], vt[64 * 64], ub[64];
    if (weighted_svd(X, n, k, sw, u + (size_t)n * k, u, s, vt) != 0 ||
        !(s[k - 1] > 1e-12 * s[0]))
        return FIT_ESINGULAR;
    project(u, n, k, y, sw, ub);
    for (int c = 0; c < k; c++) { /* V = vt^T; vt is k x k, column-major */
        coef[c] = 0;
        for (int j = 0; j < k; j++)
            coef[c] += vt[c * k + j] * ub[j] / s[j];
    }
    if (h)
        leverages(u, s, n, k, h);
    return FIT_OK;
}

/* Least squares by QR, A = Q R: R coef = Q^T b, the leverages the squared rows of Q. 1 when
 * R's diagonal spans more than 1e9 (the columns may be nearly dependent: the SVD decides, as
 * the smallest singular value is at most R's smallest diagonal element and the largest at
 * least its largest). A model search fits hundreds of hypotheses of a few columns a series,
 * and on ten rows dgesvd costs five times dgeqr2 and dorg2r. */
static int qr_solve(const double *X, int n, int k, const double *y, const double *sw,
                    double *space, double *coef, double *h)
{
    double *q = space, *work = space + (size_t)n * k, tau[64], r[64 * 64], qb[64];
    int info;
    weighted_design(X, n, k, sw, q);
    lapack.dgeqr2(&n, &k, q, &n, tau, work, &info);
    double lo = INFINITY, hi = 0;
    for (int j = 0; j < k; j++) {
        for (int i = 0; i <= j; i++)
            r[j * k + i] = q[j * n + i];
        lo = fmin(lo, fabs(r[j * k + j]));
        hi = fmax(hi, fabs(r[j * k + j]));
    }
    if (info != 0 || !(lo > 1e-9 * hi))
        return 1;
    lapack.dorg2r(&n, &k, &k, q, &n, tau, work, &info);
    if (info != 0)
        return 1;
    project(q, n, k, y, sw, qb);
    for (int j = k - 1; j >= 0; j--) { /* back substitution */
        double v = qb[j];
        for (int c = j + 1; c < k; c++)
            v -= r[c * k + j] * coef[c];
        coef[j] = v / r[j * k + j];
    }
    for (int i = 0; h && i < n; i++) {
        h[i] = 0;
        for (int j = 0; j < k; j++)
            h[i] += q[j * n + i] * q[j * n + i];
    }
    return FIT_OK;
}

/* Weighted least squares: the coefficients, the residual sum of squares and, unless h is
 * NULL, the leverages, all from one decomposition. */
static int lsq_fit(const double *X, int n, int k, const double *y, const double *w,
                   double *coef, double *rss, double *h)
{
    if (n < k || k < 1 || k > 64)
        return FIT_EINPUT;
    if (!loaded())
        return FIT_ENOLAPACK;
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]) || (w && !(w[i] >= 0 && isfinite(w[i]))))
            return FIT_EINPUT;
        for (int j = 0; j < k; j++)
            if (!isfinite(X[i * k + j]))
                return FIT_EINPUT;
    }
    double *space = lsq_space(n, k);
    if (!space)
        return FIT_ENOMEM;
    const double *sw = root_weights(w, n, lsq_roots(space, n, k));
    int rc = qr_solve(X, n, k, y, sw, space, coef, h);
    if (rc == 1)
        rc = svd_solve(X, n, k, y, sw, space, coef, h);
    free(space);
    if (rc != FIT_OK || !rss)
        return rc;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double p = 0;
        for (int j = 0; j < k; j++)
            p += X[i * k + j] * coef[j];
        sum += (w ? w[i] : 1.0) * (y[i] - p) * (y[i] - p);
    }
    *rss = sum;
    return FIT_OK;
}

int fit_lsq(const double *X, int n, int k, const double *y, const double *w, double *coef,
            double *rss)
{
    return lsq_fit(X, n, k, y, w, coef, rss, NULL);
}

int fit_lsq_leverage(const double *X, int n, int k, const double *y, const double *w,
                     double *coef, double *rss, double *h)
{
    return lsq_fit(X, n, k, y, w, coef, rss, h);
}

int fit_leverage(const double *X, int n, int k, const double *w, double *h)
{
    if (n < 1 || k < 1 || k > n || k > 64)
        return FIT_EINPUT;
    if (!loaded())
        return FIT_ENOLAPACK;
    double *u = lsq_space(n, k), s[64];
    if (!u)
        return FIT_ENOMEM;
    int info = weighted_svd(X, n, k, root_weights(w, n, lsq_roots(u, n, k)), u + (size_t)n * k,
                            u, s, NULL);
    if (info == 0)
        leverages(u, s, n, k, h);
    free(u);
    return info == 0 ? FIT_OK : FIT_ESINGULAR;
}

int fit_rank(const double *X, int n, int k)
{
    if (n < 1 || k < 1 || k > 64 || !loaded())
        return -1;
    double *a = lsq_space(n, k), s[64], u, vt;
    if (!a)
        return -1;
    int lwork = 5 * (n + k) + 64, info, one = 1, rank = 0, m = n < k ? n : k;
    for (int j = 0; j < k; j++) { /* column-major, each column of unit length */
        double norm = 0;
        for (int i = 0; i < n; i++)
            norm += X[i * k + j] * X[i * k + j];
        norm = sqrt(norm);
        for (int i = 0; i < n; i++)
            a[j * n + i] = norm > 0 ? X[i * k + j] / norm : 0;
    }
    info = 0;
    for (int i = 0; i < n * k; i++)
        if (!isfinite(a[i]))
            info = -1;
    if (info == 0)
        lapack.dgesvd("N", "N", &n, &k, a, &n, s, &u, &one, &vt, &one, a + (size_t)n * k,
                      &lwork, &info);
    for (int j = 0; info == 0 && j < m; j++)
        rank += s[j] > 1e-8 * s[0];
    free(a);
    return info == 0 ? rank : -1;
}

int fit_line(const double *x, const double *y, int n, double *c0, double *c1, double *xm,
             double *sxx)
{
    double m = 0, ym = 0;
    for (int i = 0; i < n; i++)
        m += x[i], ym += y[i];
    m /= n;
    ym /= n;
    double sx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double d = x[i] - m;
        sx += d * d;
        sxy += d * (y[i] - ym);
    }
    *xm = m;
    *sxx = sx;
    if (!(sx > 1e-300 * (m * m + 1)))
        return FIT_ESINGULAR;
    *c1 = sxy / sx;
    *c0 = ym - *c1 * m;
    return FIT_OK;
}
