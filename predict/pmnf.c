/* The Performance Model Normal Form search (docs/design.md 3.4): every hypothesis
 * c0 + c1 · x^e · log2(x)^l is fitted by relative least squares and scored by leave-one-out
 * SMAPE; the simplest within one standard error of the best wins. Negative exponents make
 * strong scaling (c + k/p) expressible.
 * Two parameters: the best term per parameter (on the points where the other one is fixed),
 * then the additive and the multiplicative combination compete. Fewer than five values of a
 * parameter allow only the simpler terms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

static const double exponents[] = {0,      0.25,  1. / 3, 0.5,  2. / 3, 0.75, 0.8,
                                   1,      1.25,  4. / 3, 1.5,  5. / 3, 1.75, 2,
                                   2.25,   7. / 3, 2.5,   8. / 3, 2.75, 3};
#define NEXP (int)(sizeof exponents / sizeof exponents[0])

struct term {
    double e;
    int l;
};

static double term_value(struct term t, double x)
{
    double v = pow(x, t.e);
    for (int i = 0; i < t.l; i++)
        v *= log2(x);
    return v;
}

/* Weights of relative least squares: the noise of run times is multiplicative (a few per cent
 * of the value), so each point's residual counts relative to its value, w = 1/y². All ones
 * when some value is not positive (then relative errors mean nothing). */
static void relative_weights(const double *y, int n, double *w)
{
    int positive = 1;
    for (int i = 0; i < n; i++)
        positive &= y[i] > 0;
    for (int i = 0; i < n; i++)
        w[i] = positive ? 1.0 / (y[i] * y[i]) : 1.0;
}

/* Leave-one-out predictions of y ≈ c0 + c1 t by weighted least squares, in closed form (the
 * hat matrix: the left-out residual is e_i / (1 - h_i)); -1 when t is constant. */
static int loo_line(const double *t, const double *y, const double *w, int n, double *pred)
{
    double sw = 0, tm = 0, ym = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sw += w[i];
        tm += w[i] * t[i];
        ym += w[i] * y[i];
    }
    tm /= sw;
    ym /= sw;
    for (int i = 0; i < n; i++) {
        sxx += w[i] * (t[i] - tm) * (t[i] - tm);
        sxy += w[i] * (t[i] - tm) * (y[i] - ym);
    }
    if (!(sxx > 1e-300 * (tm * tm + 1) * sw) || !isfinite(sxx))
        return -1;
    double c1 = sxy / sxx, c0 = ym - c1 * tm;
    for (int i = 0; i < n; i++) {
        double fit = c0 + c1 * t[i], h = w[i] * (1.0 / sw + (t[i] - tm) * (t[i] - tm) / sxx);
        if (h >= 1 - 1e-12)
            return -1; /* a point that alone determines the slope */
        pred[i] = y[i] - (y[i] - fit) / (1 - h);
    }
    return 0;
}

/* Leave-one-out predictions of the constant model (weighted mean of the others). */
static void loo_mean(const double *y, const double *w, int n, double *pred)
{
    double sum = 0, sw = 0;
    for (int i = 0; i < n; i++) {
        sum += w[i] * y[i];
        sw += w[i];
    }
    for (int i = 0; i < n; i++)
        pred[i] = (sum - w[i] * y[i]) / (sw - w[i]);
}

static int nterms(const struct pmnf_options *opt)
{
    return (opt && opt->negative ? 2 * NEXP - 1 : NEXP) * 3;
}

static struct term term_at(int h)
{
    int l = h % 3, k = h / 3;
    struct term t = {k < NEXP ? exponents[k] : -exponents[k - NEXP + 1], l};
    return t;
}

/* How complex a term is: the power of the logarithm plus the denominator of the exponent
 * (x^1 and x^-1 before x^(1/2), before x^(1/3), ...); the constant is 0. */
static int complexity(struct term t)
{
    if (t.e == 0 && t.l == 0)
        return 0;
    int denom = 1;
    while (denom < 12 && fabs(t.e * denom - round(t.e * denom)) > 1e-9)
        denom++;
    return t.l + denom;
}

/* SMAPE (percent) of pred against y, and the squared standard error of that mean. */
static double smape_se2(const double *y, const double *pred, int n, double *se2)
{
    double e[FIT_MAX_POINTS], mean = 0, var = 0;
    fit_smape_terms(y, pred, n, e);
    for (int i = 0; i < n; i++)
        mean += e[i] / n;
    for (int i = 0; i < n; i++)
        var += (e[i] - mean) * (e[i] - mean);
    *se2 = n > 1 ? var / (n - 1) / n : 0;
    return mean;
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

/* LOO SMAPE of every hypothesis h for one parameter, added into score[h] (INFINITY when the
 * hypothesis cannot be fitted), and its squared standard error into se2[h]. */
static void score_terms(const double *x, const double *y, int n, const struct pmnf_options *opt,
                        double *score, double *se2)
{
    double t[FIT_MAX_POINTS], pred[FIT_MAX_POINTS], w[FIT_MAX_POINTS];
    relative_weights(y, n, w);
    int most = max_complexity(x, n);
    for (int h = 0; h < nterms(opt); h++) {
        struct term tm = term_at(h);
        if (complexity(tm) > most) {
            score[h] = INFINITY;
            continue;
        }
        if (tm.e == 0 && tm.l == 0) {
            loo_mean(y, w, n, pred);
        } else {
            for (int i = 0; i < n; i++)
                t[i] = term_value(tm, x[i]);
            if (loo_line(t, y, w, n, pred) < 0) {
                score[h] = INFINITY;
                continue;
            }
        }
        double v;
        score[h] += smape_se2(y, pred, n, &v);
        se2[h] += v;
    }
}

/* Is term a simpler than term b: less complex, then the smaller |exponent| (the milder
 * growth when extrapolating)? 0 when they are alike. */
static int simpler(struct term a, struct term b)
{
    int ca = complexity(a), cb = complexity(b);
    if (ca != cb)
        return ca < cb ? 1 : -1;
    if (fabs(a.e) != fabs(b.e))
        return fabs(a.e) < fabs(b.e) ? 1 : -1;
    return 0;
}

/* The one-standard-error rule of cross-validation: among the hypotheses whose score is
 * within one standard error of the best score, the simplest (then the best scoring).
 * With a handful of noisy points many exponents fit about as well; the simplest of them
 * extrapolates most safely. */
static int best_of(const double *score, const double *se2, int count)
{
    int best = 0;
    for (int h = 1; h < count; h++)
        if (score[h] < score[best])
            best = h;
    double limit = score[best] + sqrt(se2[best]);
    int pick = best;
    for (int h = 0; h < count; h++) {
        if (!(score[h] <= limit))
            continue;
        int s = simpler(term_at(h), term_at(pick));
        if (s > 0 || (s == 0 && score[h] < score[pick]))
            pick = h;
    }
    return pick;
}

/* Best term of parameter d: on the groups of points where the other parameter is fixed, or
 * on all points when there are no such groups of 3. */
static struct term best_term(const double *x, int np, int d, const double *y, int n,
                             const struct pmnf_options *opt)
{
    double score[2 * NEXP * 3] = {0}, se2[2 * NEXP * 3] = {0};
    double xs[FIT_MAX_POINTS], ys[FIT_MAX_POINTS];
    int groups = 0;
    for (int i = 0; i < n && np > 1; i++) {
        int first = 1, m = 0;
        for (int j = 0; j < i; j++)
            first &= x[j * np + 1 - d] != x[i * np + 1 - d];
        if (!first)
            continue;
        for (int j = 0; j < n; j++)
            if (x[j * np + 1 - d] == x[i * np + 1 - d]) {
                xs[m] = x[j * np + d];
                ys[m++] = y[j];
            }
        if (m >= 3) {
            score_terms(xs, ys, m, opt, score, se2);
            groups++;
        }
    }
    if (!groups) {
        for (int i = 0; i < n; i++) {
            xs[i] = x[i * np + d];
            ys[i] = y[i];
        }
        memset(score, 0, sizeof score);
        memset(se2, 0, sizeof se2);
        score_terms(xs, ys, n, opt, score, se2);
    }
    return term_at(best_of(score, se2, nterms(opt)));
}

/* Fit the combination in m (terms set) on all points but `skip` (-1: none); predictions of
 * every point into pred. */
static int fit_combination(struct pmnf_model *m, const double *x, const double *y, int n,
                           int skip)
{
    int constant = 1;
    for (int d = 0; d < m->nparams; d++)
        constant &= m->e[d] == 0 && m->l[d] == 0;
    int k = constant ? 1 : m->nparams == 2 && m->additive ? 3 : 2;
    double X[FIT_MAX_POINTS * 3], yy[FIT_MAX_POINTS], w[FIT_MAX_POINTS], coef[3] = {0}, rss;
    int rows = 0;
    for (int i = 0; i < n; i++) {
        if (i == skip)
            continue;
        double f[2] = {1, 1};
        for (int d = 0; d < m->nparams; d++)
            f[d] = term_value((struct term){m->e[d], m->l[d]}, x[i * m->nparams + d]);
        X[rows * k] = 1;
        if (k == 1) {
            /* the constant model */
        } else if (k == 3) {
            X[rows * k + 1] = f[0];
            X[rows * k + 2] = f[1];
        } else {
            X[rows * k + 1] = f[0] * f[1];
        }
        yy[rows++] = y[i];
    }
    relative_weights(yy, rows, w);
    int rc = fit_lsq(X, rows, k, yy, w, coef, &rss);
    if (rc == 0) {
        memset(m->c, 0, sizeof m->c);
        memcpy(m->c, coef, (size_t)k * sizeof *coef);
    }
    return rc;
}

static void describe(struct pmnf_model *m, const char *const *names)
{
    char term[2][96];
    for (int d = 0; d < m->nparams; d++) {
        char *t = term[d];
        size_t len = sizeof term[d];
        int n = 0;
        if (m->e[d] != 0)
            n += snprintf(t + n, len - (size_t)n, "%s^(%.4g)", names[d], m->e[d]);
        if (m->l[d])
            n += snprintf(t + n, len - (size_t)n, "%slog2(%s)^%d", n ? " * " : "", names[d],
                          m->l[d]);
        if (!n)
            snprintf(t, len, "1");
    }
    if (m->nparams == 1)
        snprintf(m->formula, sizeof m->formula, "%.6g + %.6g * %s", m->c[0], m->c[1], term[0]);
    else if (m->additive)
        snprintf(m->formula, sizeof m->formula, "%.6g + %.6g * %s + %.6g * %s", m->c[0],
                 m->c[1], term[0], m->c[2], term[1]);
    else if (!strcmp(term[0], "1") || !strcmp(term[1], "1")) /* one parameter does not count */
        snprintf(m->formula, sizeof m->formula, "%.6g + %.6g * %s", m->c[0], m->c[1],
                 strcmp(term[0], "1") ? term[0] : term[1]);
    else
        snprintf(m->formula, sizeof m->formula, "%.6g + %.6g * %s * %s", m->c[0], m->c[1],
                 term[0], term[1]);
}

double pmnf_eval(const struct pmnf_model *m, const double *x)
{
    double f[2] = {1, 1};
    for (int d = 0; d < m->nparams; d++)
        f[d] = term_value((struct term){m->e[d], m->l[d]}, x[d]);
    if (m->nparams == 2 && m->additive)
        return m->c[0] + m->c[1] * f[0] + m->c[2] * f[1];
    return m->c[0] + m->c[1] * f[0] * f[1];
}

/* Fit m on all points and score it by leave-one-out SMAPE. */
static int evaluate(struct pmnf_model *m, const double *x, const double *y, int n)
{
    double pred[FIT_MAX_POINTS] = {0};
    for (int i = 0; i < n; i++) {
        struct pmnf_model loo = *m;
        if (fit_combination(&loo, x, y, n, i) != 0)
            return FIT_ESINGULAR;
        pred[i] = pmnf_eval(&loo, &x[i * m->nparams]);
    }
    m->loo_smape = fit_smape(y, pred, n);
    if (fit_combination(m, x, y, n, -1) != 0)
        return FIT_ESINGULAR;
    for (int i = 0; i < n; i++)
        pred[i] = pmnf_eval(m, &x[i * m->nparams]);
    m->fit_smape = fit_smape(y, pred, n);
    return 0;
}

int fit_pmnf(const double *x, int np, const double *y, int n, const struct pmnf_options *opt,
             struct pmnf_model *out)
{
    static const char *const dflt[] = {"x", "y"};
    const char *const *names = opt && opt->names ? opt->names : dflt;
    if (np < 1 || np > PMNF_MAX_PARAMS || n < 3 || n > FIT_MAX_POINTS)
        return FIT_EINPUT;
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            return FIT_EINPUT;
        for (int d = 0; d < np; d++)
            if (!(x[i * np + d] > 0) || !isfinite(x[i * np + d]))
                return FIT_EINPUT;
    }
    struct pmnf_model best = {0}, m = {.nparams = np};
    best.loo_smape = INFINITY;
    for (int d = 0; d < np; d++) {
        struct term t = best_term(x, np, d, y, n, opt);
        m.e[d] = t.e;
        m.l[d] = t.l;
    }
    for (int additive = 0; additive <= (np == 2); additive++) {
        m.additive = additive;
        if (evaluate(&m, x, y, n) == 0 && m.loo_smape < best.loo_smape)
            best = m;
    }
    /* The constant model competes too (a metric that does not scale). */
    struct pmnf_model c = {.nparams = np};
    if (evaluate(&c, x, y, n) == 0 && c.loo_smape <= best.loo_smape + 1e-9)
        best = c;
    if (!isfinite(best.loo_smape))
        return FIT_ESINGULAR;
    describe(&best, names);
    *out = best;
    return FIT_OK;
}
