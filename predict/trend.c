/* Does a series change with its parameters beyond the noise between repetitions? Rank tests,
 * so that one slow repetition counts as one rank and not as its size: Kruskal–Wallis over the
 * scales and over the values of each parameter (any difference, also one that is not
 * monotone), and Spearman's correlation of each parameter with the value (a monotone trend,
 * which Kruskal–Wallis over many scales detects later; ranks, so any scale of the parameter).
 * Each at 5%; a trend when any finds one, so that "no trend" is the claim that needs all of
 * them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define Z95 1.6448536269514722  /* the standard normal quantile of 95% */
#define Z975 1.959963984540054  /* and of 97.5% */

/* The 95% quantile of the chi-square distribution with df degrees of freedom: exact for one
 * and two, else Wilson and Hilferty's cube (within 0.5% from three on). */
static double chi2_95(int df)
{
    if (df == 1)
        return Z975 * Z975;
    if (df == 2)
        return -2 * log(0.05);
    double k = df, c = 1 - 2 / (9 * k) + Z95 * sqrt(2 / (9 * k));
    return k * c * c * c;
}

/* The two-sided 5% critical value of Student's t with df degrees of freedom (the Cornish–Fisher
 * expansion of Abramowitz and Stegun 26.7.5: within 1% from df = 3 on, 3% low at 2). */
static double t_975(int df)
{
    double z = Z975, d = df;
    return z + (z * z * z + z) / (4 * d) +
           (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d) +
           (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * z * z * z - 15 * z) / (384 * d * d * d);
}

struct ranked {
    double v;
    int i;
};

static int by_value(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v ? 1 : x->i - y->i;
}

/* Mid-ranks of v[n] into r (ties share the mean of their ranks); returns the tie term
 * sum(t³ - t) over groups of t equal values. */
static double midranks(const double *v, int n, double *r, struct ranked *tmp)
{
    for (int i = 0; i < n; i++)
        tmp[i] = (struct ranked){v[i], i};
    qsort(tmp, (size_t)n, sizeof *tmp, by_value);
    double ties = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && tmp[j + 1].v == tmp[i].v)
            j++;
        for (int k = i; k <= j; k++)
            r[tmp[k].i] = (i + j) / 2.0 + 1;
        double t = j - i + 1;
        ties += t * t * t - t;
        i = j + 1;
    }
    return ties;
}

/* Kruskal–Wallis H of ranks r[n] in groups g[n] (0..k-1), corrected for ties; 0 when every
 * value is equal. */
static double kruskal(const double *r, const int *g, int n, int k, double ties)
{
    double *sum = calloc((size_t)k, sizeof *sum), h = 0;
    int *count = calloc((size_t)k, sizeof *count);
    if (!sum || !count) {
        free(sum);
        free(count);
        return NAN;
    }
    for (int i = 0; i < n; i++) {
        sum[g[i]] += r[i];
        count[g[i]]++;
    }
    for (int j = 0; j < k; j++)
        if (count[j])
            h += sum[j] * sum[j] / count[j];
    free(sum);
    free(count);
    double N = n, correction = 1 - ties / (N * N * N - N);
    h = 12 / (N * (N + 1)) * h - 3 * (N + 1);
    return correction > 1e-12 ? h / correction : 0;
}

/* Spearman's rho of a[n] and b[n] (their mid-ranks' correlation); 0 when either is constant. */
static double spearman(const double *ra, const double *rb, int n)
{
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; i++) {
        ma += ra[i] / n;
        mb += rb[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}

/* Group index of every value by the distinct values of key[n] (first-seen order); returns
 * the number of groups. */
static int groups_of(const double *key, int stride, int n, int *g)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        g[i] = -1;
        for (int j = 0; j < i && g[i] < 0; j++)
            if (key[j * stride] == key[i * stride])
                g[i] = g[j];
        if (g[i] < 0)
            g[i] = k++;
    }
    return k;
}

int fit_trend(const double *x, int np, const char *const *names, const int *scale, int nscales,
              const double *y, int n, struct trend_result *out)
{
    memset(out, 0, sizeof *out);
    if (np < 1 || np > PMNF_MAX_PARAMS || nscales < 2 || n < 2 * nscales || n > FIT_MAX_VALUES)
        return FIT_EINPUT;
    int *count = calloc((size_t)nscales, sizeof *count), *g = malloc((size_t)n * sizeof *g);
    double *ry = malloc((size_t)n * sizeof *ry), *rx = malloc((size_t)n * sizeof *rx);
    double *xd = malloc((size_t)n * sizeof *xd);
    struct ranked *tmp = malloc((size_t)n * sizeof *tmp);
    int rc = FIT_ENOMEM;
    if (!count || !g || !ry || !rx || !xd || !tmp)
        goto out;
    rc = FIT_EINPUT;
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]) || scale[i] < 0 || scale[i] >= nscales)
            goto out;
        count[scale[i]]++;
    }
    for (int s = 0; s < nscales; s++)
        if (count[s] < 2)
            goto out; /* a scale without repetitions: no noise to compare a change with */
    double ties = midranks(y, n, ry, tmp);
    out->h = kruskal(ry, scale, n, nscales, ties);
    out->h_crit = chi2_95(nscales - 1);
    out->trend = out->h > out->h_crit;
    snprintf(out->what, sizeof out->what, "Kruskal-Wallis over %d scales H = %.3g (5%%: %.3g)",
             nscales, out->h, out->h_crit);
    for (int d = 0; d < np && !out->trend; d++) {
        int k = groups_of(&x[d], np, n, g);
        if (k < 2)
            continue;
        double h = kruskal(ry, g, n, k, ties), crit = chi2_95(k - 1);
        for (int i = 0; i < n; i++)
            xd[i] = x[i * np + d];
        midranks(xd, n, rx, tmp);
        double rho = spearman(rx, ry, n);
        double t = fabs(rho) * sqrt((n - 2) / fmax(1 - rho * rho, 1e-12));
        if (h > crit) {
            out->trend = 1;
            snprintf(out->what, sizeof out->what,
                     "Kruskal-Wallis over the %d values of %s H = %.3g (5%%: %.3g)", k,
                     names[d], h, crit);
        } else if (t > t_975(n - 2)) {
            out->trend = 1;
            snprintf(out->what, sizeof out->what,
                     "Spearman's rho with %s %.2f over %d values (t = %.3g, 5%%: %.3g)",
                     names[d], rho, n, t, t_975(n - 2));
        }
    }
    rc = FIT_OK;
out:
    free(count);
    free(g);
    free(ry);
    free(rx);
    free(xd);
    free(tmp);
    return rc;
}
