/* ScalaExtrap's four models of one metric t against the process count p (docs/design.md
 * 3.2, seed 000): constant, linear, inverse, inverse + constant, each with its score d1..d4;
 * the smallest score wins. In C because the default policy fits the family to every series
 * (10 runs x 1,000 intervals: a third of the policy's Lua instructions were these sums). */
#include <math.h>

#include "predict.h"

const char *const scalaextrap_forms[] = {"constant", "linear", "inverse", "inverse+constant"};

/* Mean of v without the sample farthest from the mean (ScalaExtrap's outlier rule), and
 * without v[skip] (leave-one-out; -1: none); that sample's index (-1: none, under 3 samples)
 * into *at and how many remain into *kept. The farthest sample is the smallest or the largest
 * (the first of them on a tie), so one pass finds it. */
static double robust_mean(const double *v, int n, int skip, int *at, int *kept)
{
    double s = 0, vlo = 0, vhi = 0;
    int count = 0, lo = -1, hi = -1;
    for (int i = 0; i < n; i++) {
        if (i == skip)
            continue;
        double x = v[i];
        s += x;
        count++;
        if (lo < 0 || x < vlo)
            lo = i, vlo = x;
        if (hi < 0 || x > vhi)
            hi = i, vhi = x;
    }
    double m = s / count;
    int far = -1;
    if (count >= 3) {
        double dl = fabs(vlo - m), dh = fabs(vhi - m);
        far = dl > dh ? lo : dh > dl ? hi : (lo < hi ? lo : hi);
    }
    double c = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (i != skip && i != far)
            c += v[i], k++;
    if (at)
        *at = far;
    if (kept)
        *kept = k;
    return c / k;
}

/* robust_mean(v) and the sample standard deviation (divides by count - 1) of the same
 * samples. With the sample form the selection reproduces all three of the seed's predictions;
 * with the population form NPB-IS would pick the inverse model (d3 0.1035 < d4 0.1067)
 * instead of the seed's inverse + constant. */
static double robust_mean_sd(const double *v, int n, double *sd)
{
    int at, k;
    double c = robust_mean(v, n, -1, &at, &k), q = 0;
    for (int i = 0; i < n; i++) {
        if (i != at) {
            double d = v[i] - c;
            q += d * d;
        }
    }
    *sd = sqrt(q / (k - 1));
    return c;
}

/* Least squares y = a x + b (closed form); returns sqrt(residual) / mean(fitted), NAN when x
 * does not vary. */
static double line(const double *x, const double *y, int n, double *a, double *b)
{
    double xm, sxx;
    if (fit_line(x, y, n, b, a, &xm, &sxx) != FIT_OK)
        return NAN;
    double rss = 0;
    for (int i = 0; i < n; i++) {
        double e = y[i] - *a * x[i] - *b;
        rss += e * e;
    }
    return sqrt(rss) / fabs(*a * xm + *b); /* the mean of the fitted values */
}

double scalaextrap_eval(int form, double u, double v, double p)
{
    switch (form) {
    case SCALAEXTRAP_CONSTANT:
        return u;
    case SCALAEXTRAP_LINEAR:
        return u * p + v;
    case SCALAEXTRAP_INVERSE:
        return u / p;
    default:
        return u / p + v;
    }
}

/* The four models scored by d1..d4 on 3 to FIT_MAX_POINTS points; the best into f (form,
 * u, v, score). FIT_EINPUT when no score is a number. */
static int choose(const double *p, const double *t, int n, struct scalaextrap_fit *f)
{
    double k[FIT_MAX_POINTS];
    for (int i = 0; i < n; i++)
        k[i] = t[i] * p[i];
    double score[4], u[4], v[4] = {0, 0, 0, 0}, sd;
    u[SCALAEXTRAP_CONSTANT] = robust_mean_sd(t, n, &sd);
    score[SCALAEXTRAP_CONSTANT] = u[0] != 0 ? sd / fabs(u[0]) : HUGE_VAL;
    score[SCALAEXTRAP_LINEAR] = line(p, t, n, &u[1], &v[1]);
    u[SCALAEXTRAP_INVERSE] = robust_mean_sd(k, n, &sd);
    score[SCALAEXTRAP_INVERSE] = sd / fabs(u[2]);
    /* t p = c p + k: the slope is the constant, the intercept the inverse's coefficient */
    score[SCALAEXTRAP_INVERSE_CONSTANT] = line(p, k, n, &v[3], &u[3]);
    f->form = -1;
    for (int m = 0; m < 4; m++) {
        if (score[m] == score[m] && (f->form < 0 || score[m] < f->score)) {
            f->form = m;
            f->score = score[m];
            f->u = u[m];
            f->v = v[m];
        }
    }
    return f->form < 0 ? FIT_EINPUT : FIT_OK;
}

/* Leave-one-out predictions of f's form (the form stays, its coefficients are refitted
 * without each run, as pmnf and cacheprofile do): the means drop their outlier among the
 * other runs; the two lines use the closed form e_i / (1 - h_i). */
static void loo_predictions(const struct scalaextrap_fit *f, const double *p, const double *t,
                            int n, double *pred)
{
    int form = f->form;
    double y[FIT_MAX_POINTS];
    for (int i = 0; i < n; i++)
        y[i] = form == SCALAEXTRAP_CONSTANT || form == SCALAEXTRAP_LINEAR ? t[i] : t[i] * p[i];
    if (form == SCALAEXTRAP_CONSTANT || form == SCALAEXTRAP_INVERSE) {
        for (int i = 0; i < n; i++) {
            double c = robust_mean(y, n, i, NULL, NULL);
            pred[i] = form == SCALAEXTRAP_CONSTANT ? c : c / p[i];
        }
        return;
    }
    /* the chosen line's coefficients; its mean of p summed as p_i / n, as the Lua family did,
     * so that the errors stay the same to the bit */
    int linear = form == SCALAEXTRAP_LINEAR;
    double a = linear ? f->u : f->v, b = linear ? f->v : f->u, xm = 0, sxx = 0;
    for (int i = 0; i < n; i++)
        xm += p[i] / n;
    for (int i = 0; i < n; i++) {
        double d = p[i] - xm;
        sxx += d * d;
    }
    for (int i = 0; i < n; i++) {
        double d = p[i] - xm, h = 1.0 / n + d * d / sxx;
        double yi = y[i] - (y[i] - (a * p[i] + b)) / (1 - h);
        pred[i] = linear ? yi : yi / p[i];
    }
}

/* Forward chaining (what a prediction does): the four models chosen on the runs below the
 * largest p, the best of them at the runs at the largest p; their SMAPE (percent), or NAN
 * when fewer than 3 smaller process counts remain. */
static double extrap(const double *p, const double *t, int n)
{
    double top, tp[FIT_MAX_POINTS], tt[FIT_MAX_POINTS];
    int m, below = fit_below_largest(p, t, n, tp, tt, &m, &top);
    struct scalaextrap_fit f;
    if (below < 3 || choose(tp, tt, m, &f) != FIT_OK)
        return NAN;
    double actual[FIT_MAX_POINTS], pred[FIT_MAX_POINTS];
    int h = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] == top) {
            actual[h] = t[i];
            pred[h++] = scalaextrap_eval(f.form, f.u, f.v, top);
        }
    }
    return fit_smape(actual, pred, h);
}

int fit_scalaextrap(const double *p, const double *t, int n, struct scalaextrap_fit *out)
{
    if (n < 3 || n > FIT_MAX_POINTS || choose(p, t, n, out) != FIT_OK)
        return FIT_EINPUT;
    double fitted[FIT_MAX_POINTS], loo[FIT_MAX_POINTS];
    for (int i = 0; i < n; i++)
        fitted[i] = scalaextrap_eval(out->form, out->u, out->v, p[i]);
    out->fit_smape = fit_smape(t, fitted, n);
    out->loo_smape = NAN;
    if (n >= 4) {
        loo_predictions(out, p, t, n, loo);
        out->loo_smape = fit_smape(t, loo, n);
    }
    out->extrap_smape = extrap(p, t, n);
    return FIT_OK;
}
