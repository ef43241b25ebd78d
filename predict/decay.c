/* The exponential decay y = a·e^(−r·x) + c (r > 0, c ≥ 0) of the cache-profile models
 * (docs/design.md 3.3, seed 004) by least squares. For each rate r the best a and c are a
 * linear problem in closed form, so only r is searched (variable projection: no valley between
 * a and r to crawl along): a grid of rates, then a golden-section search on log r between the
 * neighbours of the grid's best. */
#include <math.h>

#include "predict.h"

/* The best a and c at rate r (c ≥ 0: on the bound the fit is y = a·e^(−r·x)) and the residual
 * sum of squares, from centred sums; t[] receives e^(−r·x). */
static double at_rate(double r, const double *x, const double *y, int n, double *t, double *a,
                      double *c)
{
    double tm = 0, ym = 0;
    for (int i = 0; i < n; i++) {
        t[i] = exp(-r * x[i]);
        tm += t[i];
        ym += y[i];
    }
    tm /= n;
    ym /= n;
    double stt = 0, sty = 0, syy = 0, t2 = 0, ty = 0;
    for (int i = 0; i < n; i++) {
        double dt = t[i] - tm, dy = y[i] - ym;
        stt += dt * dt;
        sty += dt * dy;
        syy += dy * dy;
        t2 += t[i] * t[i];
        ty += t[i] * y[i];
    }
    if (stt > 1e-300 && ym - sty / stt * tm >= 0) {
        *a = sty / stt;
        *c = ym - *a * tm;
        return fmax(syy - sty * sty / stt, 0);
    }
    *a = t2 > 0 ? ty / t2 : 0;
    *c = 0;
    return fmax(syy + n * ym * ym - ty * ty / fmax(t2, 1e-300), 0);
}

int fit_decay(const double *x, const double *y, int n, double *a, double *r, double *c,
              double *rss)
{
    double lo = INFINITY, hi = -INFINITY, t[FIT_MAX_POINTS];
    if (n < 3 || n > FIT_MAX_POINTS)
        return FIT_EINPUT;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return FIT_EINPUT;
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    if (!(hi > lo))
        return FIT_ESINGULAR;
    /* rates 10^-2 .. 10^2 decays over the range of x, a factor sqrt(10) apart */
    enum { GRID = 9 };
    double rate[GRID], err[GRID], ua, uc;
    int best = -1;
    for (int j = 0; j < GRID; j++) {
        rate[j] = pow(10, (j - GRID / 2) / 2.0) / (hi - lo);
        err[j] = at_rate(rate[j], x, y, n, t, &ua, &uc);
        if (isfinite(err[j]) && (best < 0 || err[j] < err[best]))
            best = j;
    }
    if (best < 0)
        return FIT_ENOCONV;
    const double gold = (sqrt(5) - 1) / 2;
    double p = log(rate[best > 0 ? best - 1 : 0]);
    double q = log(rate[best < GRID - 1 ? best + 1 : best]);
    double u = q - gold * (q - p), v = p + gold * (q - p);
    double fu = at_rate(exp(u), x, y, n, t, &ua, &uc);
    double fv = at_rate(exp(v), x, y, n, t, &ua, &uc);
    while (q - p > 1e-6) {
        if (fu <= fv) {
            q = v;
            v = u;
            fv = fu;
            u = q - gold * (q - p);
            fu = at_rate(exp(u), x, y, n, t, &ua, &uc);
        } else {
            p = u;
            u = v;
            fu = fv;
            v = p + gold * (q - p);
            fv = at_rate(exp(v), x, y, n, t, &ua, &uc);
        }
    }
    *r = exp((p + q) / 2);
    *rss = at_rate(*r, x, y, n, t, a, c);
    if (!(*rss <= err[best])) {
        *r = rate[best];
        *rss = at_rate(*r, x, y, n, t, a, c);
    }
    return FIT_OK;
}
