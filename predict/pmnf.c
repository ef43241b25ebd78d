/* The Performance Model Normal Form search (docs/design.md 3.4): every hypothesis
 * c0 + c1 · x^e · log2(x)^l is fitted by relative least squares and scored by the mean of its
 * leave-one-out SMAPE and its forward-chaining SMAPE (the points at the largest value of the
 * parameter predicted from the others, what a prediction does, and for one parameter those at
 * the second largest from the values below it: PMNF_FORWARD); the simplest within one
 * standard error and a tenth of the best wins. Negative exponents make strong scaling
 * (c + k/p) expressible.
 * Several parameters: the best terms per parameter (on its curve averaged over the others),
 * then every combination of their products competes: for two parameters c0 + c1·f + c2·g,
 * c0 + c1·f·g, c0 + c1·f + c2·f·g, c0 + c1·g + c2·f·g (and f or g alone); for three every
 * set of at most three products. Fewer than five values of a parameter allow only the
 * simpler terms, and three that rise no negative exponent. Where the points do not measure
 * how the parameters combine (each varied alone), the additive form is chosen over the mixed
 * ones that fit alike (reexpresses_additive). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmnf_parts.h"

/* m's term of parameter d, and its second term (PMNF_SECOND, of parameter m->d2). */
static struct pmnf_term term_of(const struct pmnf_model *m, int d)
{
    return (struct pmnf_term){m->e[d], m->l[d]};
}

static struct pmnf_term second_term(const struct pmnf_model *m)
{
    return (struct pmnf_term){m->e2, m->l2};
}

/* The value of product `mask` of m's terms at point x. */
static double product(const struct pmnf_model *m, unsigned mask, const double *x)
{
    if (mask == PMNF_SECOND)
        return pmnf_term_value(second_term(m), x[m->d2]);
    double v = 1;
    for (int d = 0; d < m->nparams; d++)
        if (mask >> d & 1)
            v *= pmnf_term_value(term_of(m, d), x[d]);
    return v;
}

double pmnf_eval(const struct pmnf_model *m, const double *x)
{
    double v = m->c[0];
    for (int t = 0; t < m->nterms; t++)
        v += m->c[t + 1] * product(m, m->mask[t], x);
    return v;
}

int pmnf_uses(const struct pmnf_model *m, int d)
{
    for (int t = 0; t < m->nterms; t++)
        if (m->mask[t] == PMNF_SECOND ? m->d2 == d : m->mask[t] >> d & 1)
            return 1;
    return 0;
}

/* The most best terms of a parameter the search combines (those of a single parameter). */
#define BEST_TERMS 12

/* The points of a search and the values of its terms there, each term's once: the search
 * builds its hundreds of models from a few terms per parameter, and pow() for every product
 * of every model was a fifth of a prediction over three parameters. */
#define MAX_COLUMNS 24 /* terms of one parameter: BEST_TERMS, 2 falling, 4 growing second terms */
struct columns {
    const double *x;
    int np, n;
    int count[PMNF_MAX_PARAMS];
    struct pmnf_term term[PMNF_MAX_PARAMS][MAX_COLUMNS];
    double *values; /* [d][j][i] */
};

/* The values of term t of parameter d at every point; NULL when d has MAX_COLUMNS already. */
static const double *column(struct columns *c, int d, struct pmnf_term t)
{
    double *v = c->values + (size_t)d * MAX_COLUMNS * c->n;
    for (int j = 0; j < c->count[d]; j++, v += c->n)
        if (c->term[d][j].e == t.e && c->term[d][j].l == t.l)
            return v;
    if (c->count[d] == MAX_COLUMNS)
        return NULL;
    c->term[d][c->count[d]++] = t;
    for (int i = 0; i < c->n; i++)
        v[i] = pmnf_term_value(t, c->x[i * c->np + d]);
    return v;
}

/* The value of each of m's products at each point: P[i * nterms + t], as product() gives it
 * (the same multiplications in the same order). A hypothesis is fitted, evaluated and
 * refitted on subsets of the points several times; pow() for every product each time took a
 * third of `tardy predict` on 1,000 series of two parameters. */
static void products_at(const struct pmnf_model *m, struct columns *c, double *P)
{
    for (int t = 0; t < m->nterms; t++) {
        const double *col[PMNF_MAX_PARAMS];
        int nd = 0, kept = 1; /* kept: every factor's column is in c */
        if (m->mask[t] == PMNF_SECOND) {
            kept = (col[nd++] = column(c, m->d2, second_term(m))) != NULL;
        } else {
            for (int d = 0; d < m->nparams; d++)
                if (m->mask[t] >> d & 1)
                    kept &= (col[nd++] = column(c, d, term_of(m, d))) != NULL;
        }
        for (int i = 0; i < c->n; i++) {
            double v = kept ? 1 : product(m, m->mask[t], &c->x[i * m->nparams]);
            for (int k = 0; kept && k < nd; k++)
                v *= col[k][i];
            P[i * m->nterms + t] = v;
        }
    }
}

/* m at point i from its products there (P of products_at): pmnf_eval, in the same order. */
static double eval_at(const struct pmnf_model *m, const double *P, int i)
{
    double v = m->c[0];
    for (int t = 0; t < m->nterms; t++)
        v += m->c[t + 1] * P[i * m->nterms + t];
    return v;
}

/* Fit m's coefficients on the points i with use[i] (NULL: all), relative least squares, from
 * m's products at the points (P of products_at); unless lev is NULL, the leverages too. */
static int fit_coefficients(struct pmnf_model *m, const double *P, const double *y, int n,
                            const unsigned char *use, double *lev)
{
    int k = m->nterms + 1, rows = 0;
    double Xs[FIT_MAX_POINTS * (PMNF_MAX_TERMS + 1)], yy[FIT_MAX_POINTS], w[FIT_MAX_POINTS];
    for (int i = 0; i < n; i++) {
        if (use && !use[i])
            continue;
        Xs[rows * k] = 1;
        for (int t = 0; t < m->nterms; t++)
            Xs[rows * k + t + 1] = P[i * m->nterms + t];
        yy[rows++] = y[i];
    }
    if (rows < k + (use ? 0 : 1))
        return FIT_EINPUT;
    pmnf_relative_weights(yy, rows, w);
    double coef[PMNF_MAX_TERMS + 1]; /* the residuals are the caller's (SMAPE, not RSS) */
    int rc = lev ? fit_lsq_leverage(Xs, rows, k, yy, w, coef, NULL, lev)
                 : fit_lsq(Xs, rows, k, yy, w, coef, NULL);
    if (rc)
        return rc;
    memcpy(m->c, coef, (size_t)k * sizeof *coef);
    return rc;
}

/* fit_coefficients for c0 + c1 t (at most one product) in closed form, without an SVD (use
 * NULL: all points). */
static int line_on(struct pmnf_model *m, const double *P, const double *y, int n,
                   const unsigned char *use)
{
    double t[FIT_MAX_POINTS], yy[FIT_MAX_POINTS], w[FIT_MAX_POINTS];
    int rows = 0;
    for (int i = 0; i < n; i++)
        if (!use || use[i]) {
            t[rows] = m->nterms ? P[i] : 0;
            yy[rows++] = y[i];
        }
    if (rows < 2)
        return FIT_EINPUT;
    pmnf_relative_weights(yy, rows, w);
    struct pmnf_moments st = pmnf_line_moments(t, yy, w, rows);
    if (m->nterms && !pmnf_line_defined(&st))
        return FIT_ESINGULAR;
    m->c[1] = m->nterms ? st.sxy / st.sxx : 0;
    m->c[0] = st.ym - m->c[1] * st.tm;
    return FIT_OK;
}

/* The origins of forward chaining of each parameter (pmnf_origins()): for one parameter
 * PMNF_FORWARD, for several one each (on a grid of two, the models already meet an origin
 * along each, and second ones, slices fitted on three values of one, cost the corner of issue
 * 13's kernels 2.2% -> 2.6%, Extra-P 2.3%). */
struct chain {
    double top[PMNF_MAX_PARAMS][PMNF_FORWARD];
    int ntop[PMNF_MAX_PARAMS];
};

static struct chain chain_of(const double *x, int np, int n)
{
    struct chain c;
    for (int d = 0; d < np; d++)
        c.ntop[d] = pmnf_origins(&x[d], np, n, np == 1 ? PMNF_FORWARD : 1, c.top[d]);
    return c;
}

/* Fit m on all the points of cols (values y); its fit, leave-one-out and forward-chaining
 * SMAPE (from the origins in ch), its score and the squared standard error of the score. */
static int evaluate(struct pmnf_model *m, struct columns *cols, const double *y,
                    const struct chain *ch, double *se2)
{
    const double *x = cols->x;
    int n = cols->n;
    /* not zeroed: products_at writes every product read here (16 KB a model: 10% of the
     * instructions of a prediction on 10 runs × 200 intervals) */
    double P[FIT_MAX_POINTS * PMNF_MAX_TERMS], h[FIT_MAX_POINTS];
    /* e: a term for each point at an origin; per parameter the origins' points are distinct */
    double pred[FIT_MAX_POINTS], loo[FIT_MAX_POINTS], e[PMNF_MAX_PARAMS * FIT_MAX_POINTS];
    products_at(m, cols, P);
    if (m->nterms <= 1) { /* c0 + c1 t: in closed form, no SVD */
        double w[FIT_MAX_POINTS];
        pmnf_relative_weights(y, n, w);
        if (m->nterms ? pmnf_loo_line(P, y, w, n, loo) < 0 : (pmnf_loo_mean(y, w, n, loo), 0))
            return FIT_ESINGULAR;
        if (line_on(m, P, y, n, NULL) != FIT_OK)
            return FIT_ESINGULAR;
        for (int i = 0; i < n; i++)
            pred[i] = eval_at(m, P, i);
    } else {
        int rc = fit_coefficients(m, P, y, n, NULL, h);
        if (rc)
            return rc;
        for (int i = 0; i < n; i++) {
            pred[i] = eval_at(m, P, i);
            if (h[i] >= 1 - 1e-9)
                return FIT_ESINGULAR; /* a point that alone determines a coefficient */
            loo[i] = y[i] - (y[i] - pred[i]) / (1 - h[i]);
        }
    }
    m->fit_smape = fit_smape(y, pred, n);
    double v1, v2 = 0;
    m->loo_smape = pmnf_smape_se2(y, loo, n, &v1);
    /* forward chaining: each parameter's largest value predicted from the smaller ones */
    int ne = 0;
    for (int d = 0; d < m->nparams; d++)
        for (int k = 0; k < ch->ntop[d]; k++) {
            unsigned char use[FIT_MAX_POINTS];
            double top = ch->top[d][k];
            for (int i = 0; i < n; i++)
                use[i] = x[i * m->nparams + d] < top;
            struct pmnf_model f = *m;
            int rc = m->nterms <= 1 ? line_on(&f, P, y, n, use)
                                    : fit_coefficients(&f, P, y, n, use, NULL);
            if (rc != FIT_OK)
                continue;
            for (int i = 0; i < n; i++)
                if (x[i * m->nparams + d] == top) {
                    double p = eval_at(&f, P, i);
                    fit_smape_terms(&y[i], &p, 1, &e[ne++]);
                }
        }
    if (ne) {
        m->extrap_smape = pmnf_mean_se2(e, ne, &v2);
        m->score = (m->loo_smape + m->extrap_smape) / 2;
        *se2 = (v1 + v2) / 4;
    } else {
        m->extrap_smape = NAN;
        m->score = m->loo_smape;
        *se2 = v1;
    }
    return isfinite(m->score) ? FIT_OK : FIT_ESINGULAR;
}

static void term_text(struct pmnf_term tm, const char *name, char *t, size_t len)
{
    int n = 0;
    t[0] = '\0';
    if (tm.e == 1)
        n += snprintf(t, len, "%s", name);
    else if (tm.e != 0)
        n += snprintf(t, len, "%s^(%.4g)", name, tm.e);
    if (tm.l == 1)
        snprintf(t + n, len - (size_t)n, "%slog2(%s)", n ? " * " : "", name);
    else if (tm.l)
        snprintf(t + n, len - (size_t)n, "%slog2(%s)^%d", n ? " * " : "", name, tm.l);
}

void formula_tidy(char *formula)
{
    char *at, *to = formula;
    while ((at = strstr(to, " + -"))) {
        memmove(at + 3, at + 4, strlen(at + 4) + 1); /* " + -b" → " - b" */
        at[1] = '-';
        to = at + 3;
    }
    size_t len = strlen(formula); /* "400 * n + 0" → "400 * n" */
    if (len > 4 && (!strcmp(formula + len - 4, " + 0") || !strcmp(formula + len - 4, " - 0")))
        formula[len - 4] = '\0';
    const char *rest = !strncmp(formula, "0 ", 2) ? formula + 2 /* "0 + p" → "p" */
                       : !strncmp(formula, "-0 ", 3) ? formula + 3 : NULL;
    if (rest && (rest[0] == '+' || rest[0] == '-') && rest[1] == ' ') {
        int minus = rest[0] == '-'; /* "0 - p" → "-p" */
        memmove(formula + minus, rest + 2, strlen(rest + 2) + 1);
        if (minus)
            formula[0] = '-';
    }
    for (to = formula; (at = strstr(to, "1 * ")); to = at) { /* "2 + 1 * p" → "2 + p" */
        if (at == formula || (at >= formula + 2 && at[-1] == ' ' &&
                              (at[-2] == '+' || at[-2] == '-')) ||
            (at == formula + 1 && formula[0] == '-'))
            memmove(at, at + 4, strlen(at + 4) + 1);
        else
            at++;
    }
}

static void describe(struct pmnf_model *m, const char *const *names)
{
    size_t len = sizeof m->formula;
    int n = snprintf(m->formula, len, "%.6g", m->c[0]);
    for (int t = 0; t < m->nterms && n < (int)len; t++) {
        n += snprintf(m->formula + n, len - (size_t)n, " + %.6g", m->c[t + 1]);
        int any = 0;
        for (int d = 0; d < m->nparams && n < (int)len; d++) {
            char term[96];
            int second = m->mask[t] == PMNF_SECOND;
            term_text(second ? second_term(m) : term_of(m, d), names[d], term, sizeof term);
            if (!(second ? d == m->d2 : m->mask[t] >> d & 1) || !term[0])
                continue;
            n += snprintf(m->formula + n, len - (size_t)n, " * %s", term);
            any = 1;
        }
        if (!any && n < (int)len)
            n += snprintf(m->formula + n, len - (size_t)n, " * 1");
    }
    formula_tidy(m->formula);
}

/* How complex a model is: its number of products, then the complexity of its terms. */
static int model_complexity(const struct pmnf_model *m)
{
    int c = 100 * m->nterms;
    for (int d = 0; d < m->nparams; d++) {
        int used = 0;
        for (int t = 0; t < m->nterms; t++)
            used |= m->mask[t] >> d & 1;
        if (used)
            c += pmnf_complexity(term_of(m, d));
    }
    for (int t = 0; t < m->nterms; t++)
        if (m->mask[t] == PMNF_SECOND)
            c += pmnf_complexity(second_term(m));
    return c;
}

/* A form (products fm[0..len)) uses a parameter whose term in m is the constant: the form
 * without that parameter covers it. */
static int uses_constant(const struct pmnf_model *m, const unsigned char *fm, int len)
{
    int uses = 0;
    for (int t = 0; t < len; t++)
        for (int d = 0; d < m->nparams; d++)
            uses |= (fm[t] >> d & 1) && m->e[d] == 0 && m->l[d] == 0;
    return uses;
}

/* The growing second terms of a parameter whose term falls: the overheads that grow with the
 * ranks (a tree's log2 p, a 2-D surface's p^(1/2), a gather's p, a sort's p·log2 p) beside the
 * work that shrinks as work / p. One term of p cannot hold both: 1 + 100/p + 0.8·log2 p from
 * p = 1..32 with 1% noise was predicted 20% low at 128 as 5 + 90/p (docs/design.md 3.4). */
static const struct pmnf_term growing[] = {{0, 1}, {0.5, 0}, {1, 0}, {1, 1}};
#define NGROWING (int)(sizeof growing / sizeof growing[0])
/* A model with a second term is work that falls and an overhead that grows: the products of
 * its parameter have positive coefficients (fitted to noise, an overhead that shrinks or
 * work that grows won where one term is the law: laws of p from single runs with 10% noise
 * erred more at 8x, bench/predict_draws.py). */
static int work_and_overhead(const struct pmnf_model *m)
{
    for (int t = 0; t < m->nterms; t++)
        if ((m->mask[t] == PMNF_SECOND || m->mask[t] >> m->d2 & 1) && !(m->c[t + 1] > 0))
            return 0;
    return 1;
}

/* Does form fm (len products) of m's terms, a form with a product of several parameters, only
 * re-express on these points the additive form of the parameters it uses (c0 + c1·f + c2·g):
 * the same span, so the same fit, scores alike, and no run tells which one holds off the
 * points. Runs that vary one parameter at a time (a cross: p at one n, n at one p) cannot
 * measure how the parameters combine; there c0 + c1·g + c2·f·g fits as well as
 * c0 + c1·f + c2·g, and the noise chose among them: 2 + 2·log2 p + 1e-4·n·log2 n from p =
 * 2..64 at n = 64 and n = 64..1024 at p = 2 with 5% noise was predicted 323x too high at
 * (128, 2048) (the test `lua/pmnf recovers laws 4x beyond the data`).
 * Without the runs' evidence of an interaction, the additive form (no interaction) is the
 * model; the others stay among the near-best, so the interval keeps their spread. A single
 * product (c0 + c1·f·g) spans less than the additive form: where it fits, that is evidence. */
static int reexpresses_additive(const struct pmnf_model *m, const unsigned char *fm, int len,
                                const double *x, int n)
{
    int used = 0, interaction = 0, ka = 1;
    for (int t = 0; t < len; t++) {
        used |= fm[t];
        interaction |= (fm[t] & (fm[t] - 1)) != 0;
    }
    for (int d = 0; d < m->nparams; d++)
        ka += used >> d & 1;
    if (!interaction || len < 2 || n < 1) /* n >= 3 here; GCC 12 warns of rows unwritten */
        return 0;
    /* columns: the additive form's (1 and each parameter's term), then the form's products */
    enum { MAXCOLS = 1 + PMNF_MAX_PARAMS + PMNF_MAX_TERMS };
    double both[FIT_MAX_POINTS * MAXCOLS], one[FIT_MAX_POINTS * MAXCOLS];
    int kb = ka + len;
    for (int i = 0; i < n; i++) {
        double *row = &both[i * kb];
        int c = 0;
        row[c++] = 1;
        for (int d = 0; d < m->nparams; d++)
            if (used >> d & 1)
                row[c++] = product(m, 1u << d, &x[i * m->nparams]);
        for (int t = 0; t < len; t++)
            row[c++] = product(m, fm[t], &x[i * m->nparams]);
    }
    int union_rank = fit_rank(both, n, kb);
    for (int i = 0; i < n; i++) /* the form alone: 1 and its products */
        for (int c = 0; c <= len; c++)
            one[i * (len + 1) + c] = c == 0 ? 1 : both[i * kb + ka + c - 1];
    int form_rank = fit_rank(one, n, len + 1);
    for (int i = 0; i < n; i++) /* the additive form alone: the first ka columns */
        memcpy(&one[i * ka], &both[i * kb], (size_t)ka * sizeof *one);
    int additive_rank = fit_rank(one, n, ka);
    return additive_rank > 0 && form_rank == additive_rank && union_rank == additive_rank;
}

/* Do the points tell every product of m's terms apart (1, f, g, f·g, ...: full rank)? Then
 * every interaction is measured and no form re-expresses another (a grid); the test of each
 * form (reexpresses_additive) is for the points that do not, once per combination of terms. */
static int interactions_measured(const struct pmnf_model *m, const double *x, int n)
{
    int k = 1 << m->nparams;
    double X[FIT_MAX_POINTS * (1 << PMNF_MAX_PARAMS)];
    if (n < k)
        return 0;
    for (int i = 0; i < n; i++)
        for (int mask = 0; mask < k; mask++)
            X[i * k + mask] = product(m, (unsigned)mask, &x[i * m->nparams]);
    return fit_rank(X, n, k) == k;
}

/* Three coefficients, fitted on the values below the second largest in forward chaining,
 * need four of them: six values of the parameter. */
#define SECOND_VALUES 6

/* The sets of products to try (forms()): each set's products in fm, how many in len. */
struct form_list {
    unsigned char fm[128][PMNF_MAX_TERMS];
    int len[128], n;
};

/* The sets of products to try for np parameters into fl: every set of 1 to min(np, 3)
 * distinct non-empty subsets of the parameters, in which no product contains another unless
 * it is the full product (c0 + c1·f + c2·f·g, not c0 + c1·f + c2·f). */
static void forms(int np, struct form_list *fl)
{
    unsigned char(*out)[PMNF_MAX_TERMS] = fl->fm;
    int *len = fl->len;
    int full = (1 << np) - 1, count = 0;
    for (int a = 1; a <= full; a++) {
        out[count][0] = (unsigned char)a;
        len[count++] = 1;
        for (int b = a + 1; b <= full && np > 1; b++) {
            if (((a & b) == a || (a & b) == b) && b != full && a != full)
                continue;
            out[count][0] = (unsigned char)a;
            out[count][1] = (unsigned char)b;
            len[count++] = 2;
            for (int c = b + 1; c <= full && np > 2; c++) {
                if ((((a & c) == a || (a & c) == c) && c != full) ||
                    (((b & c) == b || (b & c) == c) && c != full))
                    continue;
                out[count][0] = (unsigned char)a;
                out[count][1] = (unsigned char)b;
                out[count][2] = (unsigned char)c;
                len[count++] = 3;
            }
        }
    }
    fl->n = count;
}

/* Every x positive and finite, every y finite. */
static int valid_points(const double *x, int np, const double *y, int n)
{
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            return 0;
        for (int d = 0; d < np; d++)
            if (!(x[i * np + d] > 0) || !isfinite(x[i * np + d]))
                return 0;
    }
    return 1;
}

/* The hypotheses of one search that fit, each scored (evaluate): the models, the squared
 * standard errors of their scores and whether each re-expresses the additive form
 * (reexpresses_additive); at most cap. */
struct candidates {
    struct pmnf_model *model;
    double *se2;
    unsigned char *reexpressed;
    int n, cap;
};

static void candidates_free(struct candidates *c)
{
    free(c->model);
    free(c->se2);
    free(c->reexpressed);
}

/* m fitted and scored as the next candidate, kept when it fits and, with `split`, when it
 * splits work and overhead (work_and_overhead). */
static void consider(struct candidates *c, const struct pmnf_model *m, int reexpressed,
                     int split, struct columns *cols, const double *y, const struct chain *ch)
{
    if (c->n >= c->cap)
        return;
    struct pmnf_model *k = &c->model[c->n];
    *k = *m;
    c->reexpressed[c->n] = (unsigned char)reexpressed;
    if (evaluate(k, cols, y, ch, &c->se2[c->n]) == FIT_OK && (!split || work_and_overhead(k)))
        c->n++;
}

/* The search's terms: the best per parameter (by the closed-form score of the single term),
 * and the falling terms that get a growing second term where the best term of a parameter
 * falls (the work shrinks with it; a series that grows from the start, 1 + 0.5·p^(1/2), took
 * 0.3/p as "work" fitted to its noise): work / p, and the best term if another (one term of
 * p fitted to work and overhead together bends to p^(-4/3), above p^(-1)). */
struct search_terms {
    struct pmnf_term best[PMNF_MAX_PARAMS][BEST_TERMS];
    int nbest[PMNF_MAX_PARAMS];
    struct pmnf_term falling[PMNF_MAX_PARAMS][2];
    int nfalling[PMNF_MAX_PARAMS];
    int values[PMNF_MAX_PARAMS]; /* how many values each parameter has */
    int combos;                  /* how many combinations of the best terms */
};

/* 0, or FIT_ESINGULAR when a parameter has no term that fits. BEST_TERMS for one
 * parameter, 3 each for two, 2 each for three; each model is then fitted and scored. */
static int search_terms_of(const double *x, int np, const double *y, int n,
                           const struct pmnf_options *opt, struct search_terms *st)
{
    int per = np == 1 ? BEST_TERMS : np == 2 ? 3 : 2;
    st->combos = 1;
    for (int d = 0; d < np; d++) {
        if ((st->nbest[d] = pmnf_best_terms(x, np, d, y, n, opt, st->best[d], per)) == 0)
            return FIT_ESINGULAR;
        st->combos *= st->nbest[d];
        pmnf_largest_value(&x[d], np, n, 0, &st->values[d]);
        st->values[d]++; /* those below the largest, and the largest */
        struct pmnf_term top = st->best[d][0];
        st->falling[d][0] = (struct pmnf_term){-1, 0};
        st->falling[d][1] = top;
        st->nfalling[d] = !(top.e < 0) ? 0 : top.e == -1 && top.l == 0 ? 1 : 2;
    }
    return 0;
}

/* The forms of m (its products) with a falling term of a parameter d it uses and
 * a growing second term of d, for the d whose term in m is its best (once per combination of
 * the other parameters' terms). */
static void second_term_forms(struct candidates *c, const struct pmnf_model *m,
                              const struct search_terms *st, const int *first,
                              int reexpressed, struct columns *cols, const double *y,
                              const struct chain *ch)
{
    for (int d = 0; d < m->nparams && m->nterms < PMNF_MAX_TERMS; d++) {
        int uses = 0;
        for (int t = 0; t < m->nterms; t++)
            uses |= m->mask[t] >> d & 1;
        if (!uses || !first[d] || st->values[d] < SECOND_VALUES)
            continue;
        for (int k = 0; k < st->nfalling[d]; k++)
            for (int g = 0; g < NGROWING; g++) {
                struct pmnf_model s2 = *m;
                s2.e[d] = st->falling[d][k].e;
                s2.l[d] = st->falling[d][k].l;
                s2.mask[s2.nterms++] = PMNF_SECOND;
                s2.d2 = d;
                s2.e2 = growing[g].e;
                s2.l2 = growing[g].l;
                consider(c, &s2, reexpressed, 1, cols, y, ch);
            }
    }
}

/* Combination c of the best terms (one per parameter) into m; first[d] whether d's is its
 * best; returns whether some term is the constant. */
static int combination(const struct search_terms *st, int c, struct pmnf_model *m, int *first)
{
    int constant_term = 0;
    for (int d = 0; d < m->nparams; d++) {
        struct pmnf_term t = st->best[d][c % st->nbest[d]];
        first[d] = c % st->nbest[d] == 0;
        c /= st->nbest[d];
        m->e[d] = t.e;
        m->l[d] = t.l;
        constant_term |= t.e == 0 && t.l == 0;
    }
    return constant_term;
}

/* Every hypothesis into c: the constant model (a metric that does not scale), every form of
 * every combination of the best terms, and those with a second term. */
static void enumerate(struct candidates *c, const struct search_terms *st,
                      const struct form_list *fl, const double *x, int np, const double *y,
                      int n, struct columns *cols)
{
    struct chain ch = chain_of(x, np, n);
    consider(c, &(struct pmnf_model){.nparams = np}, 0, 0, cols, y, &ch);
    for (int k = 0; k < st->combos; k++) {
        struct pmnf_model m = {.nparams = np};
        int first[PMNF_MAX_PARAMS], constant_term = combination(st, k, &m, first);
        int measured = np == 1 || interactions_measured(&m, x, n);
        for (int f = 0; f < fl->n; f++) {
            /* a product of constant terms only is the constant model */
            if (uses_constant(&m, fl->fm[f], fl->len[f]) || (np == 1 && constant_term))
                continue;
            m.nterms = fl->len[f];
            memset(m.mask, 0, sizeof m.mask);
            memcpy(m.mask, fl->fm[f], (size_t)fl->len[f]);
            int additive_again =
                !measured && reexpresses_additive(&m, fl->fm[f], fl->len[f], x, n);
            consider(c, &m, additive_again, 0, cols, y, &ch);
            second_term_forms(c, &m, st, first, additive_again, cols, y, &ch);
        }
    }
}

/* The simplest model within one standard error and a tenth of the best score (more products
 * and more complex terms must earn their place: with noise of a few per cent a mixed form
 * fits the noise as well as the law; with no slack n²/p on a 5 x 5 grid was within 10% at 4x
 * in 90.5% of the noise draws, with a tenth 97%; a quarter kept the flatter n·log2 n at a
 * two-parameter corner: 2.6% error where a tenth errs by 2.1%); a form that re-expresses the
 * additive one is no choice where another is (reexpresses_additive). */
static int simplest_near_best(const struct candidates *c)
{
    int any = 0;
    for (int i = 0; i < c->n; i++)
        any |= !c->reexpressed[i];
    int best = -1;
    for (int i = 0; i < c->n; i++)
        if ((!any || !c->reexpressed[i]) &&
            (best < 0 || c->model[i].score < c->model[best].score))
            best = i;
    double limit = 1.1 * c->model[best].score + sqrt(c->se2[best]);
    int pick = best;
    for (int i = 0; i < c->n; i++) {
        if (!(c->model[i].score <= limit) || (any && c->reexpressed[i]))
            continue;
        int a = model_complexity(&c->model[i]), b = model_complexity(&c->model[pick]);
        if (a < b || (a == b && c->model[i].score < c->model[pick].score))
            pick = i;
    }
    return pick;
}

/* The same hypothesis: terms, products and second term alike (coefficients aside). */
static int same_hypothesis(const struct pmnf_model *a, const struct pmnf_model *b)
{
    return !memcmp(a->e, b->e, sizeof a->e) && !memcmp(a->l, b->l, sizeof a->l) &&
           a->nterms == b->nterms && !memcmp(a->mask, b->mask, sizeof a->mask) &&
           a->d2 == b->d2 && a->e2 == b->e2 && a->l2 == b->l2;
}

/* out[0] the pick, then the other hypotheses scoring nearly as well, by score, each once;
 * returns how many (at most max). Takes the candidates' scores. */
static int ranked(struct candidates *c, int pick, struct pmnf_model *out, int max)
{
    int count = 0;
    out[count++] = c->model[pick];
    double near = 1.25 * c->model[pick].score + 0.5;
    while (count < max) {
        int next = -1;
        for (int i = 0; i < c->n; i++) {
            if (i == pick || !(c->model[i].score <= near))
                continue;
            int used = 0;
            for (int j = 1; j < count && !used; j++)
                used = same_hypothesis(&c->model[i], &out[j]);
            if (!used && (next < 0 || c->model[i].score < c->model[next].score))
                next = i;
        }
        if (next < 0)
            break;
        out[count++] = c->model[next];
        c->model[next].score = INFINITY; /* taken */
    }
    return count;
}

int fit_pmnf_ranked(const double *x, int np, const double *y, int n,
                    const struct pmnf_options *opt, struct pmnf_model *out, int max)
{
    static const char *const dflt[] = {"x", "y", "z"};
    const char *const *names = opt && opt->names ? opt->names : dflt;
    if (np < 1 || np > PMNF_MAX_PARAMS || n < 3 || n > FIT_MAX_POINTS || max < 1 ||
        !valid_points(x, np, y, n))
        return FIT_EINPUT;
    struct search_terms st;
    int rc = search_terms_of(x, np, y, n, opt, &st);
    if (rc < 0)
        return rc;
    struct form_list fl;
    forms(np, &fl);
    /* the constant model, every combination, and those with a second term */
    struct candidates c = {.cap = 1 + st.combos * fl.n * (1 + np * 2 * NGROWING)};
    c.model = malloc((size_t)c.cap * sizeof *c.model);
    c.se2 = malloc((size_t)c.cap * sizeof *c.se2);
    c.reexpressed = calloc((size_t)c.cap, 1);
    struct columns cols = {.x = x, .np = np, .n = n};
    cols.values = malloc((size_t)np * MAX_COLUMNS * (size_t)n * sizeof *cols.values);
    if (!c.model || !c.se2 || !c.reexpressed || !cols.values) {
        candidates_free(&c);
        free(cols.values);
        return FIT_ENOMEM;
    }
    enumerate(&c, &st, &fl, x, np, y, n, &cols);
    free(cols.values);
    int count = c.n ? ranked(&c, simplest_near_best(&c), out, max) : FIT_ESINGULAR;
    candidates_free(&c);
    if (count < 0)
        return count;
    describe(&out[0], names);
    for (int i = 1; i < count; i++)
        out[i].formula[0] = '\0';
    return count;
}

int fit_pmnf(const double *x, int np, const double *y, int n, const struct pmnf_options *opt,
             struct pmnf_model *out)
{
    int rc = fit_pmnf_ranked(x, np, y, n, opt, out, 1);
    return rc < 0 ? rc : FIT_OK;
}
