/* Levenberg–Marquardt with a forward-difference Jacobian; bounds by projection. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

static void clamp(double *p, int k, const double *lo, const double *hi)
{
    for (int j = 0; j < k; j++) {
        if (lo && p[j] < lo[j])
            p[j] = lo[j];
        if (hi && p[j] > hi[j])
            p[j] = hi[j];
    }
}

static double sumsq(const double *r, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += r[i] * r[i];
    return s;
}

/* Solve (J^T J + mu diag) dp = -J^T r, k <= 8, by Gaussian elimination with pivoting. */
static int solve_step(const double *J, const double *r, int n, int k, double mu, double *dp)
{
    double A[8][9];
    for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
            double s = 0;
            for (int i = 0; i < n; i++)
                s += J[i * k + a] * J[i * k + b];
            A[a][b] = s;
        }
        double g = 0;
        for (int i = 0; i < n; i++)
            g += J[i * k + a] * r[i];
        A[a][a] += mu * (A[a][a] > 0 ? A[a][a] : 1.0);
        A[a][k] = -g;
    }
    for (int c = 0; c < k; c++) {
        int piv = c;
        for (int i = c + 1; i < k; i++)
            if (fabs(A[i][c]) > fabs(A[piv][c]))
                piv = i;
        if (fabs(A[piv][c]) < 1e-300)
            return -1;
        for (int j = 0; j <= k; j++) {
            double t = A[c][j];
            A[c][j] = A[piv][j];
            A[piv][j] = t;
        }
        for (int i = c + 1; i < k; i++) {
            double f = A[i][c] / A[c][c];
            for (int j = c; j <= k; j++)
                A[i][j] -= f * A[c][j];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = A[c][k];
        for (int j = c + 1; j < k; j++)
            s -= A[c][j] * dp[j];
        dp[c] = s / A[c][c];
    }
    return 0;
}

/* Forward differences of r (the residuals at p) into J. */
static int jacobian(fit_resid_fn resid, void *ctx, int n, int k, const double *p,
                    const double *r, double *J, double *rt)
{
    double trial[8];
    for (int j = 0; j < k; j++) {
        double h = 1e-7 * (fabs(p[j]) + 1e-7);
        memcpy(trial, p, (size_t)k * sizeof *p);
        trial[j] += h;
        if (resid(trial, rt, ctx) != 0)
            return -1;
        for (int i = 0; i < n; i++)
            J[i * k + j] = (rt[i] - r[i]) / h;
    }
    return 0;
}

int fit_jacobian(fit_resid_fn resid, void *ctx, int n, int k, const double *params, double *J)
{
    if (k < 1 || k > 8 || n < 1)
        return FIT_EINPUT;
    double *r = malloc((size_t)n * sizeof *r), *rt = malloc((size_t)n * sizeof *rt);
    int rc = !r || !rt ? FIT_ENOMEM
             : resid(params, r, ctx) != 0 || jacobian(resid, ctx, n, k, params, r, J, rt) != 0
                 ? FIT_EINPUT
                 : FIT_OK;
    free(r);
    free(rt);
    return rc;
}

int fit_lm(fit_resid_fn resid, void *ctx, int n, int k, double *params, const double *lower,
           const double *upper, int max_iter, double *rss)
{
    if (k < 1 || k > 8 || n < k)
        return FIT_EINPUT;
    double *r = malloc((size_t)n * sizeof *r), *rt = malloc((size_t)n * sizeof *rt);
    double *J = malloc((size_t)n * k * sizeof *J), p[8], trial[8], dp[8];
    int rc = FIT_ENOMEM;
    if (!r || !rt || !J)
        goto out;
    clamp(params, k, lower, upper);
    memcpy(p, params, (size_t)k * sizeof *p);
    rc = FIT_EINPUT;
    if (resid(p, r, ctx) != 0)
        goto out;
    double cost = sumsq(r, n), mu = 1e-3;
    if (!isfinite(cost))
        goto out;
    rc = FIT_ENOCONV;
    for (int it = 0; it < max_iter; it++) {
        if (jacobian(resid, ctx, n, k, p, r, J, rt) != 0)
            goto out;
        int improved = 0;
        for (int tries = 0; tries < 30 && !improved; tries++) {
            if (solve_step(J, r, n, k, mu, dp) != 0) {
                mu *= 10;
                continue;
            }
            double step = 0, size = 0;
            for (int j = 0; j < k; j++) {
                trial[j] = p[j] + dp[j];
                step += dp[j] * dp[j];
                size += p[j] * p[j];
            }
            if (step <= 1e-16 * (size + 1e-300))
                break; /* the damped step vanishes: no descent left (xtol) */
            clamp(trial, k, lower, upper);
            double c = resid(trial, rt, ctx) == 0 ? sumsq(rt, n) : INFINITY;
            if (isfinite(c) && c < cost) {
                double gain = cost - c, moved = 0;
                for (int j = 0; j < k; j++)
                    moved += (trial[j] - p[j]) * (trial[j] - p[j]);
                memcpy(p, trial, (size_t)k * sizeof *p);
                memcpy(r, rt, (size_t)n * sizeof *r);
                cost = c;
                mu = mu > 1e-12 ? mu / 3 : mu;
                improved = 1;
                /* converged (MINPACK's ftol and xtol): the cost or the parameters barely move */
                if (gain <= 1e-8 * (cost + 1e-300) || moved <= 1e-16 * (size + 1e-300)) {
                    rc = FIT_OK;
                    it = max_iter;
                }
            } else {
                mu *= 4;
            }
        }
        if (!improved) { /* no descent direction left: a (bounded) minimum */
            rc = FIT_OK;
            break;
        }
    }
    if (rc == FIT_ENOCONV && cost < INFINITY)
        rc = FIT_OK; /* iteration cap reached with a finite, decreasing cost */
    memcpy(params, p, (size_t)k * sizeof *p);
    *rss = cost;
out:
    free(r);
    free(rt);
    free(J);
    return rc;
}
