/* Goodness of fit. */
#include <math.h>

#include "predict.h"

double fit_rss(const double *a, const double *p, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (a[i] - p[i]) * (a[i] - p[i]);
    return s;
}

void fit_smape_terms(const double *a, const double *p, int n, double *terms)
{
    double scale = 0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, fabs(a[i]));
    for (int i = 0; i < n; i++) {
        double d = fabs(a[i]) + fabs(p[i]), e = fabs(a[i] - p[i]);
        /* rounding noise around a zero value is no error (0 vs 1e-14 would count 200%) */
        terms[i] = d > 0 && e > 1e-9 * scale ? 200 * e / d : 0;
    }
}

double fit_smape(const double *a, const double *p, int n)
{
    double s = 0, t[64];
    for (int i = 0; i < n; i += 64) {
        int m = n - i < 64 ? n - i : 64;
        fit_smape_terms(a + i, p + i, m, t);
        for (int j = 0; j < m; j++)
            s += t[j];
    }
    return n ? s / n : 0;
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
