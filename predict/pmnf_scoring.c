/* The scores of a PMNF hypothesis (pmnf.c) on a line c0 + c1 t: relative least squares, its
 * leave-one-out predictions in closed form, SMAPE with the standard error of its mean, and
 * the origins of forward chaining. */
#include <math.h>

#include "pmnf_parts.h"

/* Weights of relative least squares: the noise of run times is multiplicative (a few per cent
 * of the value), so each point's residual counts relative to its value, w = 1/y². All ones
 * when some value is not positive (then relative errors mean nothing). */
void pmnf_relative_weights(const double *y, int n, double *w)
{
    int positive = 1;
    for (int i = 0; i < n; i++)
        positive &= y[i] > 0;
    for (int i = 0; i < n; i++)
        w[i] = positive ? 1.0 / (y[i] * y[i]) : 1.0;
}

/* The weighted moments of points (t_i, y_i) for the line c0 + c1 t: weight sum, weighted
 * means, centred sums of squares and products. */
struct pmnf_moments pmnf_line_moments(const double *t, const double *y, const double *w, int n)
{
    struct pmnf_moments s = {0};
    for (int i = 0; i < n; i++) {
        s.sw += w[i];
        s.tm += w[i] * t[i];
        s.ym += w[i] * y[i];
    }
    s.tm /= s.sw;
    s.ym /= s.sw;
    for (int i = 0; i < n; i++) {
        s.sxx += w[i] * (t[i] - s.tm) * (t[i] - s.tm);
        s.sxy += w[i] * (t[i] - s.tm) * (y[i] - s.ym);
    }
    return s;
}

/* The slope is determined: t varies beyond rounding. */
int pmnf_line_defined(const struct pmnf_moments *s)
{
    return s->sxx > 1e-300 * (s->tm * s->tm + 1) * s->sw;
}

/* Leave-one-out predictions of y ≈ c0 + c1 t by weighted least squares, in closed form (the
 * hat matrix: the left-out residual is e_i / (1 - h_i)); -1 when t is constant. */
int pmnf_loo_line(const double *t, const double *y, const double *w, int n, double *pred)
{
    struct pmnf_moments s = pmnf_line_moments(t, y, w, n);
    if (!pmnf_line_defined(&s) || !isfinite(s.sxx))
        return -1;
    double c1 = s.sxy / s.sxx, c0 = s.ym - c1 * s.tm;
    for (int i = 0; i < n; i++) {
        double fit = c0 + c1 * t[i];
        double h = w[i] * (1.0 / s.sw + (t[i] - s.tm) * (t[i] - s.tm) / s.sxx);
        if (h >= 1 - 1e-12)
            return -1; /* a point that alone determines the slope */
        pred[i] = y[i] - (y[i] - fit) / (1 - h);
    }
    return 0;
}

/* Leave-one-out predictions of the constant model (weighted mean of the others). */
void pmnf_loo_mean(const double *y, const double *w, int n, double *pred)
{
    double sum = 0, sw = 0;
    for (int i = 0; i < n; i++) {
        sum += w[i] * y[i];
        sw += w[i];
    }
    for (int i = 0; i < n; i++)
        pred[i] = (sum - w[i] * y[i]) / (sw - w[i]);
}

/* Mean of e[n] and, unless se2 is NULL, the squared standard error of that mean. */
double pmnf_mean_se2(const double *e, int n, double *se2)
{
    double mean = 0, var = 0;
    for (int i = 0; i < n; i++)
        mean += e[i] / n;
    if (!se2)
        return mean;
    for (int i = 0; i < n; i++)
        var += (e[i] - mean) * (e[i] - mean);
    *se2 = n > 1 ? var / (n - 1) / n : 0;
    return mean;
}

/* SMAPE (percent) of pred against y and, unless se2 is NULL, the squared standard error of
 * that mean. */
double pmnf_smape_se2(const double *y, const double *pred, int n, double *se2)
{
    double e[FIT_MAX_POINTS];
    fit_smape_terms(y, pred, n, e);
    return pmnf_mean_se2(e, n, se2);
}

/* The k-th largest distinct value of x[i * stride] (k = 0 the largest) and, in *below, how
 * many distinct values lie below it; -INFINITY when there are fewer than k + 1 values. */
double pmnf_largest_value(const double *x, int stride, int n, int k, int *below)
{
    double v = INFINITY;
    for (int r = 0; r <= k; r++) {
        double next = -INFINITY;
        for (int i = 0; i < n; i++)
            if (x[i * stride] < v)
                next = fmax(next, x[i * stride]);
        v = next;
    }
    *below = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = x[j * stride] == x[i * stride];
        *below += !seen && x[i * stride] < v;
    }
    return v;
}

/* The origins of forward chaining along one parameter (x[i * stride]): its largest values,
 * at most `most`, each with 3 values below it at least, into top; returns how many. They
 * depend on the points alone: computed once per search, not per hypothesis. */
int pmnf_origins(const double *x, int stride, int n, int most, double *top)
{
    int count = 0;
    for (int k = 0; k < most; k++) {
        int below;
        double v = pmnf_largest_value(x, stride, n, k, &below);
        if (below < 3)
            break;
        top[count++] = v;
    }
    return count;
}
