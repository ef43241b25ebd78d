/* The cache-profile models (docs/design.md 3.3, seed 004) of one metric y against one
 * parameter x: against the process count linear a·x + b, inverse a + b/x (a >= 0), log
 * k·log(x) + b (k > 0: the seed's log(x)/log(a) + b with a > 1) and exponential
 * a·e^(−r·(x − lo)) + c (r > 0, c >= 0, through fit_decay); against a problem size linear
 * with a > 0. Each by least squares, the smallest MAPE on the fitted runs wins. In C because the
 * default policy fits the family to every series (10 runs x 1,000 intervals: a third of the
 * policy's Lua instructions were these sums). */
#include <math.h>

#include "predict.h"

const char *const cacheprofile_forms[] = {"linear", "inverse", "log", "exponential"};

/* fit_line, and the leverages into h (may be NULL). */
static int line(const double *t, const double *y, int n, double *c0, double *c1, double *h)
{
    double tm, sxx;
    int rc = fit_line(t, y, n, c0, c1, &tm, &sxx);
    for (int i = 0; !rc && h && i < n; i++) {
        double d = t[i] - tm;
        h[i] = 1.0 / n + d * d / sxx;
    }
    return rc;
}

double cacheprofile_eval(const struct cacheprofile_form *f, double x)
{
    const double *k = f->coef;
    switch (f->form) {
    case CACHEPROFILE_LINEAR:
        return k[0] * x + k[1];
    case CACHEPROFILE_INVERSE:
        return k[0] + k[1] / x;
    case CACHEPROFILE_LOG:
        return k[0] * log(x) + k[1];
    default:
        return k[0] * exp(-k[1] * (x - k[3])) + k[2];
    }
}

/* The leverages of the exponential's fit f into h, from the Jacobian of a·e^(−r·t) + c in
 * (a, r, c) at t = x − lo (c fixed where it lies at its bound 0); FIT_OK or why not. Asked of
 * the exponential only where it fits best: it is a least-squares fit of its own. */
static int decay_leverages(const struct cacheprofile_form *f, const double *x, const double *y,
                           int n, double *h)
{
    double J[FIT_MAX_POINTS * 3], coef[3], rss;
    const double *k = f->coef;
    int cols = k[2] > 0 ? 3 : 2;
    for (int i = 0; i < n; i++) {
        double t = x[i] - k[3], e = exp(-k[1] * t), *row = &J[i * cols];
        row[0] = e;
        row[1] = -k[0] * t * e;
        if (cols == 3)
            row[2] = 1;
    }
    return fit_lsq_leverage(J, n, cols, y, NULL, coef, &rss, h);
}

/* Fit form to the n points under its constraints (size: x is a problem size, where the
 * linear form needs a > 0): FIT_OK, or why the form does not fit. Unless h is NULL, the
 * leverages of the fit into h, except for the exponential's (decay_leverages). */
static int fit_form(int form, const double *x, const double *y, int n, int size,
                    struct cacheprofile_form *f, double *h)
{
    double t[FIT_MAX_POINTS], *k = f->coef;
    int rc;
    f->form = form;
    switch (form) {
    case CACHEPROFILE_LINEAR:
        rc = line(x, y, n, &k[1], &k[0], h);
        return rc ? rc : size && k[0] <= 0 ? FIT_EINPUT : FIT_OK;
    case CACHEPROFILE_INVERSE:
        for (int i = 0; i < n; i++)
            t[i] = 1 / x[i];
        if ((rc = line(t, y, n, &k[0], &k[1], h)))
            return rc;
        if (k[0] < 0) { /* the constrained optimum lies on a = 0: y = b / x */
            double stt = 0, sty = 0;
            for (int i = 0; i < n; i++)
                stt += t[i] * t[i], sty += t[i] * y[i];
            k[0] = 0;
            k[1] = sty / stt;
            for (int i = 0; h && i < n; i++)
                h[i] = t[i] * t[i] / stt;
        }
        return FIT_OK;
    case CACHEPROFILE_LOG:
        for (int i = 0; i < n; i++)
            t[i] = log(x[i]);
        rc = line(t, y, n, &k[1], &k[0], h);
        return rc ? rc : k[0] <= 0 ? FIT_EINPUT : FIT_OK;
    default: {
        /* on x − lo, so that e^(−r·x) stays in range */
        double lo = HUGE_VAL, hi = -HUGE_VAL, rss;
        for (int i = 0; i < n; i++)
            lo = fmin(lo, x[i]), hi = fmax(hi, x[i]);
        if (hi <= lo)
            return FIT_ESINGULAR;
        for (int i = 0; i < n; i++)
            t[i] = x[i] - lo;
        if ((rc = fit_decay(t, y, n, &k[0], &k[1], &k[2], &rss)))
            return rc;
        k[3] = lo;
        return FIT_OK;
    }
    }
}

/* Forward chaining (what a prediction does): the chosen form fitted on the runs below the
 * largest x predicts the runs at the largest x; their SMAPE (percent), or NAN when fewer than
 * 3 smaller values remain (4 for the exponential: more than its coefficients). */
static double extrap(int form, const double *x, const double *y, int n, int size)
{
    double top, tx[FIT_MAX_POINTS], ty[FIT_MAX_POINTS];
    double hy[FIT_MAX_POINTS], pred[FIT_MAX_POINTS];
    int m, held = 0, below = fit_below_largest(x, y, n, tx, ty, &m, &top);
    struct cacheprofile_form f;
    if (below < (form == CACHEPROFILE_EXPONENTIAL ? 4 : 3) ||
        fit_form(form, tx, ty, m, size, &f, NULL) != FIT_OK)
        return NAN;
    for (int i = 0; i < n; i++) {
        if (x[i] >= top) {
            hy[held] = y[i];
            pred[held++] = cacheprofile_eval(&f, x[i]);
        }
    }
    return fit_smape(hy, pred, held);
}

int fit_cacheprofile(const double *x, const double *y, int n, int size, int refit,
                     struct cacheprofile_fit *out)
{
    if (n < 3 || n > FIT_MAX_POINTS)
        return FIT_EINPUT;
    for (int i = 0; i < n; i++)
        if (y[i] == 0)
            return FIT_EINPUT; /* MAPE selection needs non-zero values */
    double pred[FIT_MAX_POINTS], best_pred[FIT_MAX_POINTS], h[FIT_MAX_POINTS];
    double best_h[FIT_MAX_POINTS], best_mape = NAN;
    int best_has_h = 0;
    for (int form = 0; form < (size ? 1 : 4); form++) {
        struct cacheprofile_form f;
        if (fit_form(form, x, y, n, size, &f, refit ? NULL : h) != FIT_OK)
            continue;
        for (int i = 0; i < n; i++)
            pred[i] = cacheprofile_eval(&f, x[i]);
        double mape;
        if (fit_mape(y, pred, n, &mape) != FIT_OK || mape != mape ||
            (best_mape == best_mape && !(mape < best_mape)))
            continue;
        best_mape = mape;
        out->model = f;
        best_has_h = !refit && (form != CACHEPROFILE_EXPONENTIAL ||
                                decay_leverages(&f, x, y, n, h) == FIT_OK);
        for (int i = 0; i < n; i++) {
            best_pred[i] = pred[i];
            best_h[i] = refit ? 0 : h[i];
        }
    }
    if (best_mape != best_mape)
        return FIT_ESINGULAR; /* no form fits */
    if (refit)
        return FIT_OK;
    out->fit_smape = fit_smape(y, best_pred, n);
    out->loo_smape = NAN;
    if (best_has_h) {
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            ok = !(best_h[i] >= 1 - 1e-9);
            pred[i] = y[i] - (y[i] - best_pred[i]) / (1 - best_h[i]);
        }
        if (ok)
            out->loo_smape = fit_smape(y, pred, n);
    }
    out->extrap_smape = extrap(out->model.form, x, y, n, size);
    return FIT_OK;
}
