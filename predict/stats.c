/* Goodness of fit. */
#include <math.h>

#include "fit.h"

double fit_rss(const double *a, const double *p, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (a[i] - p[i]) * (a[i] - p[i]);
    return s;
}

double fit_smape(const double *a, const double *p, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs(a[i]) + fabs(p[i]);
        s += d > 0 ? 2 * fabs(a[i] - p[i]) / d : 0;
    }
    return n ? 100 * s / n : 0;
}

int fit_mape(const double *a, const double *p, int n, double *out)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] == 0)
            return FIT_EINPUT;
        s += fabs((a[i] - p[i]) / a[i]);
    }
    *out = n ? 100 * s / n : 0;
    return FIT_OK;
}

double fit_r2(const double *a, const double *p, int n)
{
    double mean = 0, tot = 0;
    for (int i = 0; i < n; i++)
        mean += a[i] / n;
    for (int i = 0; i < n; i++)
        tot += (a[i] - mean) * (a[i] - mean);
    return tot > 0 ? 1 - fit_rss(a, p, n) / tot : 1;
}

double fit_adj_r2(const double *a, const double *p, int n, int k)
{
    if (n - k - 1 <= 0)
        return NAN;
    return 1 - (1 - fit_r2(a, p, n)) * (n - 1) / (n - k - 1);
}
