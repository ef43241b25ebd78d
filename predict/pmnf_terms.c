/* The candidate terms of one parameter in the PMNF search (pmnf.c): x^e · log2(x)^l for the
 * exponents below (and their negatives), each scored on the parameter's points by the mean of
 * its leave-one-out and forward-chaining SMAPE, the best first. */
#include <math.h>
#include <string.h>

#include "pmnf_parts.h"

static const double exponents[] = {0,      0.25,  1. / 3, 0.5,  2. / 3, 0.75, 0.8,
                                   1,      1.25,  4. / 3, 1.5,  5. / 3, 1.75, 2,
                                   2.25,   7. / 3, 2.5,   8. / 3, 2.75, 3};
#define NEXP (int)(sizeof exponents / sizeof exponents[0])

static int nterms(const struct pmnf_options *opt)
{
    return (opt && opt->negative ? 2 * NEXP - 1 : NEXP) * 3;
}

static struct pmnf_term term_at(int h)
{
    int l = h % 3, k = h / 3;
    struct pmnf_term t = {k < NEXP ? exponents[k] : -exponents[k - NEXP + 1], l};
    return t;
}

/* How complex a term is: the power of the logarithm plus the denominator of the exponent
 * (x^1 and x^-1 before x^(1/2), before x^(1/3), ...); the constant is 0. */
int pmnf_complexity(struct pmnf_term t)
{
    if (t.e == 0 && t.l == 0)
        return 0;
    int denom = 1;
    while (denom < 12 && fabs(t.e * denom - round(t.e * denom)) > 1e-9)
        denom++;
    return t.l + denom;
}

/* The most complex term that values at x can tell apart: Extra-P asks for at least five
 * values of a parameter; with four only the simple terms (x^±1, x^±2, x^±3, x^±1/2, and
 * the integer powers times log2 x) compete, with three only the integer powers. */
static int max_complexity(const double *x, int n)
{
    int distinct = 0;
    for (int i = 0; i < n && distinct < 5; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = x[j] == x[i];
        distinct += !seen;
    }
    return distinct >= 5 ? 1000 : distinct - 2;
}

/* Forward chaining for one parameter from its origins (top[0..ntop)): the line c0 + c1 t
 * fitted on the points below each origin, its SMAPE terms at the points at the origin
 * appended to e (count in *ne). */
static void holdout_line(const double *x, const double *t, const double *y, const double *w,
                         int n, const double *top, int ntop, double *e, int *ne)
{
    for (int k = 0; k < ntop; k++) {
        double tb[FIT_MAX_POINTS], yb[FIT_MAX_POINTS], wb[FIT_MAX_POINTS];
        int m = 0;
        for (int i = 0; i < n; i++)
            if (x[i] < top[k]) {
                tb[m] = t[i];
                yb[m] = y[i];
                wb[m++] = w[i];
            }
        struct pmnf_moments s = pmnf_line_moments(tb, yb, wb, m);
        double c1 = s.sxx > 0 ? s.sxy / s.sxx : 0, c0 = s.ym - c1 * s.tm;
        for (int i = 0; i < n; i++)
            if (x[i] == top[k]) {
                double p = c0 + c1 * t[i], a = y[i];
                fit_smape_terms(&a, &p, 1, &e[(*ne)++]);
            }
    }
}

/* Do the points rise over three values of x (the mean at the largest above the mean at the
 * smallest)? A rise that levels off (c - a/p, a negative exponent) and one that goes on (c +
 * a·log2 p) each meet three values with their two coefficients, and which one the noise
 * favours decides the prediction: from the three smaller values of a 4 x 4 grid's p, the
 * levelling forms chose through 3-10% noise erred 10-17% low at the largest p where log2 p and
 * p·log2 p were the laws. Where the points rise, three values admit only PMNF's own terms
 * (Extra-P's, which has no negative exponents): growth goes on; from four values on the runs
 * judge. */
static int rises_on_three(const double *x, const double *y, int n)
{
    if (max_complexity(x, n) != 1) /* three values */
        return 0;
    double lo = INFINITY, hi = -INFINITY, at_lo = 0, at_hi = 0;
    int n_lo = 0, n_hi = 0;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    for (int i = 0; i < n; i++) {
        at_lo += x[i] == lo ? y[i] : 0;
        n_lo += x[i] == lo;
        at_hi += x[i] == hi ? y[i] : 0;
        n_hi += x[i] == hi;
    }
    return at_hi / n_hi > at_lo / n_lo;
}

/* The score of every hypothesis h for one parameter (the mean of LOO SMAPE and forward-chaining
 * SMAPE), added into score[h] (INFINITY when the hypothesis cannot be fitted, is more complex
 * than most, or has a negative exponent where three values rise: rises_on_three). */
static void score_terms(const double *x, const double *y, int n, const struct pmnf_options *opt,
                        int most, double *score)
{
    double t[FIT_MAX_POINTS], pred[FIT_MAX_POINTS], w[FIT_MAX_POINTS];
    double h[FIT_MAX_POINTS], power[FIT_MAX_POINTS], lg[FIT_MAX_POINTS];
    int growth_only = rises_on_three(x, y, n);
    pmnf_relative_weights(y, n, w);
    for (int i = 0; i < n; i++)
        lg[i] = log2(x[i]);
    double top[PMNF_FORWARD];
    int ntop = pmnf_origins(x, 1, n, PMNF_FORWARD, top);
    for (int k = 0; k < nterms(opt); k++) {
        struct pmnf_term tm = term_at(k);
        if (tm.l == 0) /* x^e once for the three powers of log2 x that follow (term_at) */
            for (int i = 0; i < n; i++)
                power[i] = pow(x[i], tm.e);
        if (pmnf_complexity(tm) > most || (growth_only && tm.e < 0)) {
            score[k] = INFINITY;
            continue;
        }
        for (int i = 0; i < n; i++)
            t[i] = tm.l == 0 ? power[i] : tm.l == 1 ? power[i] * lg[i] : power[i] * lg[i] * lg[i];
        if (tm.e == 0 && tm.l == 0) {
            pmnf_loo_mean(y, w, n, pred);
        } else if (pmnf_loo_line(t, y, w, n, pred) < 0) {
            score[k] = INFINITY;
            continue;
        }
        double loo = pmnf_smape_se2(y, pred, n, NULL);
        int nh = 0;
        holdout_line(x, t, y, w, n, top, ntop, h, &nh);
        score[k] += nh ? (loo + pmnf_mean_se2(h, nh, NULL)) / 2 : loo;
    }
}

/* Is term a simpler than term b: less complex, then the smaller |exponent| (the milder
 * growth when extrapolating)? 0 when they are alike. */
static int simpler(struct pmnf_term a, struct pmnf_term b)
{
    int ca = pmnf_complexity(a), cb = pmnf_complexity(b);
    if (ca != cb)
        return ca < cb ? 1 : -1;
    if (fabs(a.e) != fabs(b.e))
        return fabs(a.e) < fabs(b.e) ? 1 : -1;
    return 0;
}

/* The hypotheses of one parameter by score, the simpler first among equals: the candidates
 * of the model search, which alone prefers the simpler models (fit_pmnf_ranked). Preferring
 * the simplest term within one standard error here as well dropped the better-scoring terms
 * from the search: n·log2 n for n·log2² n at a two-parameter corner, and the real runs of
 * `make bench-predict` erred by 16.5% and 24.8% where they now err by 11.6% and 17.9%. */
static int rank_terms(const double *score, int count, int *order, int max)
{
    /* an insertion sort of the finite scores: stable, so alike terms keep their order */
    struct pmnf_term terms[2 * NEXP * 3];
    int m = 0;
    for (int h = 0; h < count; h++) {
        if (!isfinite(score[h]))
            continue;
        terms[h] = term_at(h);
        int at = m++;
        while (at > 0 && (score[h] < score[order[at - 1]] ||
                          (score[h] == score[order[at - 1]] &&
                           simpler(terms[h], terms[order[at - 1]]) > 0))) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = h;
    }
    return m < max ? m : max;
}

/* Points i and j have the same values of every parameter but d (one group along d). */
static int same_group(const double *x, int np, int d, int i, int j)
{
    for (int o = 0; o < np; o++)
        if (o != d && x[j * np + o] != x[i * np + o])
            return 0;
    return 1;
}

/* The mean over the other parameters of the values at each value of parameter d (xs, ys;
 * returns how many values; *groups how many groups), over the groups of points (the same
 * values of the other parameters) that hold every value of d, repetitions averaged first: as
 * Extra-P's multi-parameter modeler chooses its points, so that a grid with its corner held
 * out still gives whole curves. 0 when no group is complete or d has fewer than 3 values.
 * Every PMNF form with one term per parameter (c0 + c1·f + c2·g, c0 + c1·f·g, the mixed ones)
 * averaged over the others is c0' + c1'·g: the curve has d's term, with the noise averaged
 * over the groups, and no group where d's term is small next to the noise outvotes the others
 * with a flat fit. */
static int grid_curve(const double *x, int np, int d, const double *y, int n, double *xs,
                      double *ys, int *groups)
{
    int m = 0;
    *groups = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < m && xs[k] != x[i * np + d])
            k++;
        if (k == m)
            xs[m++] = x[i * np + d];
    }
    if (m < 3)
        return 0;
    double sum[FIT_MAX_POINTS] = {0};
    for (int i = 0; i < n; i++) {
        int first = 1, members = 0, reps[FIT_MAX_POINTS]; /* repetitions: their mean */
        double v[FIT_MAX_POINTS];
        for (int k = 0; k < m; k++)
            v[k] = reps[k] = 0;
        for (int j = 0; j < n; j++) {
            if (!same_group(x, np, d, i, j))
                continue;
            first &= j >= i;
            int k = 0;
            while (xs[k] != x[j * np + d])
                k++;
            members += !reps[k]++;
            v[k] += y[j];
        }
        if (!first || members != m)
            continue;
        for (int k = 0; k < m; k++)
            sum[k] += v[k] / reps[k];
        ++*groups;
    }
    if (!*groups)
        return 0;
    for (int k = 0; k < m; k++)
        ys[k] = sum[k] / *groups;
    return m;
}

/* The best terms of parameter d (at most max, in order of preference): scored on the mean
 * curve of the complete groups (grid_curve); without one, on each group of points where the
 * other parameters are fixed (the scores summed), or on all points when there are no such
 * groups of 3. Three or four values on a curve averaged over several groups admit the
 * terms up to complexity 3 (log2 x, x·log2² x, x^(1/2)·log2 x, x^(1/3), x^(2/3)): its noise
 * is the groups' averaged, and issue 13's two-parameter set is dominant in n·log2² n, which
 * a corner predicted from the 4 × 4 points below it could not otherwise express; a 4 × 4
 * grid's largest p predicted from its three smaller ones otherwise knew only integer powers,
 * and took p for log2 p (docs/design.md 3.4). Three values each the median of repetitions
 * (opt->repeated) admit complexity 2: 12 laws of one parameter from three doublings with
 * 3-10% noise and 2, 3 or 5 repetitions, 534 of 970 within 10% at the fourth where 387 were
 * (Extra-P 378); single runs keep the integer powers (with the richer terms their intervals
 * held 53% of the values, 77% without). Returns how many. */
int pmnf_best_terms(const double *x, int np, int d, const double *y, int n,
                      const struct pmnf_options *opt, struct pmnf_term *out, int max)
{
    double score[2 * NEXP * 3] = {0};
    double xs[FIT_MAX_POINTS], ys[FIT_MAX_POINTS];
    int groups = 0, averaged = 0;
    int values = np > 1 ? grid_curve(x, np, d, y, n, xs, ys, &averaged) : 0;
    if (values) {
        int most = max_complexity(xs, values);
        score_terms(xs, ys, values, opt, averaged > 1 && most < 3 ? 3 : most, score);
    }
    for (int i = 0; i < n && np > 1 && !values; i++) {
        int first = 1, m = 0;
        for (int j = 0; j < i && first; j++)
            first = !same_group(x, np, d, i, j);
        if (!first)
            continue;
        for (int j = 0; j < n; j++)
            if (same_group(x, np, d, i, j)) {
                xs[m] = x[j * np + d];
                ys[m++] = y[j];
            }
        if (max_complexity(xs, m) >= 1) { /* three values of x_d at least */
            score_terms(xs, ys, m, opt, max_complexity(xs, m), score);
            groups++;
        }
    }
    if (!groups && !values) {
        for (int i = 0; i < n; i++) {
            xs[i] = x[i * np + d];
            ys[i] = y[i];
        }
        memset(score, 0, sizeof score);
        int most = max_complexity(xs, n);
        score_terms(xs, ys, n, opt, opt && opt->repeated && most == 1 ? 2 : most, score);
    }
    int order[2 * NEXP * 3], m = rank_terms(score, nterms(opt), order, max);
    for (int i = 0; i < m; i++)
        out[i] = term_at(order[i]);
    return m;
}
