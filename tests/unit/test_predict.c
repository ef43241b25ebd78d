/* predict: least squares (exact coefficients, residuals and weights by hand, leverages),
 * the Jacobian, Levenberg–Marquardt, the statistics (RSS, SMAPE, MAPE, R², adjusted R² by
 * hand), the PMNF search (the exact exponent and log power of every law
 * c0 + c1 · p^k · log2(p)^j of its search space, two-parameter laws, and the recovery of
 * scaling laws from noisy data over many noise draws: acceptance 7(b) checked as a rate, not
 * on one lucky seed), and the Extra-P text format (a foreign file, a round trip of runs,
 * errors named by line), and LAPACK's loading. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "predict/lapack_api.h"
#include "predict/predict.h"
#include "predict/store_head.h"

static uint64_t lcg;

/* Uniform multiplicative noise in [1 - 5%, 1 + 5%]. */
static double noise(void)
{
    lcg = (lcg * 1103515245u + 12345u) % 2147483648u;
    return 1 + 0.05 * (2.0 * (double)lcg / 2147483648.0 - 1);
}

static double law(int which, double p, double n)
{
    switch (which) {
    case 0: return 2 + 300 / p;                 /* Amdahl: serial part + strong scaling */
    case 1: return 5 + 0.2 * p * log2(p);       /* e.g. a tree-based all-to-all */
    case 2: return 40 + 3 * p;                  /* constant plus linear */
    default: return n * n / p;                  /* two parameters, strong scaling in p */
    }
}

/* Share of noise draws for which the law predicted 4x beyond the data is within 10%:
 * p = 1..64 (powers of two) with 5 repetitions each, or the 5x5 grid p = 2..32,
 * n = 64..1024 for the two-parameter law. */
static double recovery_rate(int which, int draws)
{
    int ok = 0;
    for (int s = 0; s < draws; s++) {
        double x[64], y[64], at[2] = {256, 0};
        int n = 0, np = which == 3 ? 2 : 1;
        lcg = 1000 + (uint64_t)s * 7919;
        if (np == 1) {
            for (double p = 1; p <= 64; p *= 2)
                for (int r = 0; r < 5; r++) {
                    x[n] = p;
                    y[n++] = law(which, p, 0) * noise();
                }
        } else {
            for (double p = 2; p <= 32; p *= 2)
                for (double m = 64; m <= 1024; m *= 2) {
                    x[2 * n] = p;
                    x[2 * n + 1] = m;
                    y[n++] = law(which, p, m) * noise();
                }
            at[0] = 128;
            at[1] = 4096;
        }
        struct pmnf_options opt = {.negative = 1};
        struct pmnf_model m;
        if (fit_pmnf(x, np, y, n, &opt, &m) != FIT_OK)
            continue;
        double want = law(which, at[0], at[1]);
        ok += fabs(pmnf_eval(&m, at) - want) <= 0.10 * want;
    }
    return (double)ok / draws;
}

struct expo {
    const double *x, *y;
    int n;
};

/* r_i = a * exp(-b x_i) + c - y_i */
static int expo_resid(const double *q, double *r, void *arg)
{
    const struct expo *e = arg;
    for (int i = 0; i < e->n; i++)
        r[i] = q[0] * exp(-q[1] * e->x[i]) + q[2] - e->y[i];
    return 0;
}

/* linear residual r_i = q0 + q1 x_i - y_i */
static int line_resid(const double *q, double *r, void *arg)
{
    const struct expo *e = arg;
    for (int i = 0; i < e->n; i++)
        r[i] = q[0] + q[1] * e->x[i] - e->y[i];
    return 0;
}

static void least_squares(void)
{
    /* least squares recovers an exact line; weights change nothing on exact data */
    double X[] = {1, 1, 1, 2, 1, 3, 1, 4}, y[] = {3, 5, 7, 9}, w[] = {1, 4, 0.5, 2}, c[2], rss;
    CHECK(fit_lsq(X, 4, 2, y, NULL, c, &rss) == FIT_OK);
    CHECK_NEAR(c[0], 1, 1e-9);
    CHECK_NEAR(c[1], 2, 1e-9);
    CHECK(rss < 1e-18);
    CHECK(fit_lsq(X, 4, 2, y, w, c, &rss) == FIT_OK);
    CHECK_NEAR(c[1], 2, 1e-9);
    double same[] = {1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(fit_lsq(same, 4, 2, y, NULL, c, &rss) == FIT_ESINGULAR);
    double bad[] = {3, NAN, 7, 9};
    CHECK(fit_lsq(X, 4, 2, bad, NULL, c, &rss) == FIT_EINPUT);
    double negw[] = {1, -1, 1, 1};
    CHECK(fit_lsq(X, 4, 2, y, negw, c, &rss) == FIT_EINPUT);
    CHECK(fit_lsq(X, 1, 2, y, NULL, c, &rss) == FIT_EINPUT); /* fewer points than unknowns */

    /* LAPACK is loaded on the first fit; a library that is not there is named, and one
     * without the routines too */
    char why[512];
    struct lapack_api api;
    CHECK(lapack_load(why, sizeof why) == 0);
    CHECK(lapack_load_from("libtardy-no-such-lapack.so.9", &api, why, sizeof why) < 0);
    CHECK(strstr(why, "cannot load LAPACK (libtardy-no-such-lapack.so.9)") != NULL);
    CHECK(lapack_load_from("libm.so.6", &api, why, sizeof why) < 0);
    CHECK(strstr(why, "libm.so.6") && strstr(why, "dgesvd_"));

    /* a parabola y = 2 - 3x + x²/2 at x = 0..5: three coefficients exactly */
    double Q[18], qy[6], qc[3];
    for (int i = 0; i < 6; i++) {
        Q[3 * i] = 1;
        Q[3 * i + 1] = i;
        Q[3 * i + 2] = i * i;
        qy[i] = 2 - 3.0 * i + 0.5 * i * i;
    }
    CHECK(fit_lsq(Q, 6, 3, qy, NULL, qc, &rss) == FIT_OK);
    CHECK_NEAR(qc[0], 2, 1e-9);
    CHECK_NEAR(qc[1], -3, 1e-9);
    CHECK_NEAR(qc[2], 0.5, 1e-9);

    /* inconsistent points (0,0), (1,1), (2,1): slope Sxy/Sxx = 1/2, intercept 2/3 - 1/2 = 1/6,
     * residuals -1/6, 1/3, -1/6: RSS 1/6 */
    double L[] = {1, 0, 1, 1, 1, 2}, ly[] = {0, 1, 1};
    CHECK(fit_lsq(L, 3, 2, ly, NULL, c, &rss) == FIT_OK);
    CHECK_NEAR(c[0], 1.0 / 6, 1e-12);
    CHECK_NEAR(c[1], 0.5, 1e-12);
    CHECK_NEAR(rss, 1.0 / 6, 1e-12);
    /* weights: the constant through 1 (weight 3) and 4 (weight 1) is the weighted mean 7/4,
     * RSS 3 (3/4)² + (9/4)² = 27/16 + 81/16 = 6.75 */
    double one[] = {1, 1}, cy[] = {1, 4}, cw[] = {3, 1};
    CHECK(fit_lsq(one, 2, 1, cy, cw, c, &rss) == FIT_OK);
    CHECK_NEAR(c[0], 1.75, 1e-12);
    CHECK_NEAR(rss, 6.75, 1e-12);

    /* leverages of the line through x = 1..4: 1/n + (x - 2.5)²/5 = 0.7, 0.3, 0.3, 0.7; of the
     * weighted constant: w_i / sum w = 3/4, 1/4 */
    double h[4];
    CHECK(fit_leverage(X, 4, 2, NULL, h) == FIT_OK);
    CHECK_NEAR(h[0], 0.7, 1e-12);
    CHECK_NEAR(h[1], 0.3, 1e-12);
    CHECK_NEAR(h[2], 0.3, 1e-12);
    CHECK_NEAR(h[3], 0.7, 1e-12);
    CHECK(fit_leverage(one, 2, 1, cw, h) == FIT_OK);
    CHECK_NEAR(h[0], 0.75, 1e-12);
    CHECK_NEAR(h[1], 0.25, 1e-12);
    CHECK(fit_leverage(X, 1, 2, NULL, h) == FIT_EINPUT);
    /* the same leverages from the QR of fit_lsq_leverage */
    CHECK(fit_lsq_leverage(X, 4, 2, y, NULL, c, &rss, h) == FIT_OK);
    CHECK_NEAR(h[0], 0.7, 1e-12);
    CHECK_NEAR(h[1], 0.3, 1e-12);
    CHECK_NEAR(h[3], 0.7, 1e-12);
    /* columns 1e11 apart in scale: R's diagonal spans more than 1e9, the SVD decides (its
     * singular values span less than 1e12) and the line 1 + 2x is found */
    double S[] = {1, 1e11, 1, 2e11, 1, 3e11, 1, 4e11};
    CHECK(fit_lsq_leverage(S, 4, 2, y, NULL, c, &rss, h) == FIT_OK);
    CHECK_NEAR(c[0], 1, 1e-6);
    CHECK_NEAR(c[1] * 1e11, 2, 1e-6);
    CHECK_NEAR(h[0], 0.7, 1e-6);

    /* the Jacobian of q0 + q1 x - y is (1, x) in every row */
    double jx[] = {1, 2, 3}, jy[] = {0, 0, 0}, J[6], q0[2] = {0.5, 2};
    struct expo lin = {jx, jy, 3};
    CHECK(fit_jacobian(line_resid, &lin, 3, 2, q0, J) == FIT_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(J[2 * i], 1, 1e-6);
        CHECK_NEAR(J[2 * i + 1], jx[i], 1e-6);
    }

    /* each error has its own message */
    const char *msgs[] = {fit_strerror(FIT_OK), fit_strerror(FIT_EINPUT),
                          fit_strerror(FIT_ESINGULAR), fit_strerror(FIT_ENOMEM),
                          fit_strerror(FIT_ENOCONV)};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < i; j++)
            CHECK(msgs[i] && *msgs[i] && strcmp(msgs[i], msgs[j]));

    /* Levenberg–Marquardt on an exponential with a bound */
    double ex[8], ey[8];
    for (int i = 0; i < 8; i++) {
        ex[i] = i;
        ey[i] = 5 * exp(-0.7 * i) + 2;
    }
    struct expo e = {ex, ey, 8};
    double q[3] = {1, 0.1, 0}, lo[3] = {-HUGE_VAL, 0, 0}, hi[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
    CHECK(fit_lm(expo_resid, &e, 8, 3, q, lo, hi, 500, &rss) == FIT_OK);
    CHECK_NEAR(q[0], 5, 1e-4);
    CHECK_NEAR(q[1], 0.7, 1e-4);
    CHECK_NEAR(q[2], 2, 1e-4);
}

/* The cache-profile exponential a·e^(−r·x) + c: exact data give back a, r and c for decays
 * slow and fast across the range (the grid and the search between its points) and for data
 * rising to a ceiling (a < 0); data that end below zero hold c at its bound 0, with a rate
 * better than its neighbours there. */
static void decay(void)
{
    double x[12], y[12], a, r, c, rss;
    const double rates[] = {0.003, 0.05, 0.7, 4};
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 12; i++) {
            x[i] = 2 * i;
            y[i] = 5 * exp(-rates[k] * x[i]) + 2;
        }
        CHECK(fit_decay(x, y, 12, &a, &r, &c, &rss) == FIT_OK);
        CHECK_NEAR(r / rates[k], 1, 1e-3);
        CHECK_NEAR(a, 5, 5e-3);
        CHECK_NEAR(c, 2, 5e-3);
        CHECK(rss < 1e-6);
    }
    for (int i = 0; i < 12; i++) /* rising to a ceiling: a < 0 */
        y[i] = 9 - 4 * exp(-0.3 * x[i]);
    CHECK(fit_decay(x, y, 12, &a, &r, &c, &rss) == FIT_OK);
    CHECK_NEAR(a, -4, 1e-3);
    CHECK_NEAR(r, 0.3, 1e-4);
    CHECK_NEAR(c, 9, 1e-3);
    for (int i = 0; i < 12; i++) /* below zero at the end: c is held at 0 */
        y[i] = 3 * exp(-0.2 * x[i]) - 0.5;
    CHECK(fit_decay(x, y, 12, &a, &r, &c, &rss) == FIT_OK);
    CHECK(c == 0 && a > 0 && r > 0 && rss > 0);
    for (int side = -1; side <= 1; side += 2) { /* y = a'·e^(−s·x), a' at its best */
        double s2 = r * pow(1.05, side), ty = 0, tt = 0, yy = 0;
        for (int i = 0; i < 12; i++) {
            double t = exp(-s2 * x[i]);
            ty += t * y[i];
            tt += t * t;
            yy += y[i] * y[i];
        }
        CHECK(yy - ty * ty / tt > rss);
    }
    double same[3] = {1, 1, 1};
    CHECK(fit_decay(same, y, 3, &a, &r, &c, &rss) == FIT_ESINGULAR);
    CHECK(fit_decay(x, y, 2, &a, &r, &c, &rss) == FIT_EINPUT);
}

/* ScalaExtrap's four models: exact data of each form pick it with its coefficients and no
 * error, forward chaining included; one sample far from the others is left out of the
 * constant's mean (the seed's outlier rule); fewer than 3 runs are refused. */
static void scalaextrap(void)
{
    double p[5] = {1, 2, 4, 8, 16}, t[5];
    struct scalaextrap_fit f;
    for (int i = 0; i < 5; i++)
        t[i] = 100 / p[i] + 2;
    CHECK(fit_scalaextrap(p, t, 5, &f) == FIT_OK);
    CHECK(f.form == SCALAEXTRAP_INVERSE_CONSTANT);
    CHECK_NEAR(f.u, 100, 1e-12);
    CHECK_NEAR(f.v, 2, 1e-12);
    CHECK_NEAR(scalaextrap_eval(f.form, f.u, f.v, 64), 100.0 / 64 + 2, 1e-12);
    CHECK(f.fit_smape < 1e-9 && f.loo_smape < 1e-9 && f.extrap_smape < 1e-9);
    for (int i = 0; i < 5; i++)
        t[i] = 3 * p[i] + 5;
    CHECK(fit_scalaextrap(p, t, 5, &f) == FIT_OK);
    CHECK(f.form == SCALAEXTRAP_LINEAR);
    CHECK_NEAR(f.u, 3, 1e-12);
    CHECK_NEAR(f.v, 5, 1e-12);
    double flat[5] = {10, 10, 50, 10, 10};
    CHECK(fit_scalaextrap(p, flat, 5, &f) == FIT_OK);
    CHECK(f.form == SCALAEXTRAP_CONSTANT && f.u == 10 && f.score == 0);
    CHECK(fit_scalaextrap(p, t, 3, &f) == FIT_OK && isnan(f.loo_smape) && isnan(f.extrap_smape));
    CHECK(fit_scalaextrap(p, t, 2, &f) == FIT_EINPUT);
}

/* The cache-profile forms: exact data of each form pick it with its coefficients and no
 * error, leave-one-out and forward chaining included; against a problem size only a rising
 * line; a value of 0 (MAPE) and fewer than 3 runs are refused. */
static void cacheprofile(void)
{
    double x[10], y[10];
    struct cacheprofile_fit f;
    const double want[4][4] = {{3, 5, 0, 0}, {2, 40, 0, 0}, {2, 1, 0, 0}, {5, 0.3, 2, 1}};
    for (int form = 0; form < 4; form++) {
        for (int i = 0; i < 10; i++) {
            x[i] = i + 1;
            struct cacheprofile_form law = {form, {0}};
            memcpy(law.coef, want[form], sizeof law.coef);
            y[i] = cacheprofile_eval(&law, x[i]);
        }
        CHECK(fit_cacheprofile(x, y, 10, 0, 0, &f) == FIT_OK);
        CHECK(f.model.form == form);
        for (int k = 0; k < (form == CACHEPROFILE_EXPONENTIAL ? 4 : 2); k++)
            CHECK_NEAR(f.model.coef[k], want[form][k], 1e-3);
        CHECK(f.fit_smape < 1e-3 && f.loo_smape < 1e-2 && f.extrap_smape < 1e-2);
    }
    for (int i = 0; i < 10; i++)
        y[i] = 50 - 2 * x[i];
    CHECK(fit_cacheprofile(x, y, 10, 1, 0, &f) == FIT_ESINGULAR); /* size: a > 0 */
    CHECK(fit_cacheprofile(x, y, 10, 0, 1, &f) == FIT_OK && f.model.form == CACHEPROFILE_LINEAR);
    y[4] = 0;
    CHECK(fit_cacheprofile(x, y, 10, 0, 0, &f) == FIT_EINPUT);
    CHECK(fit_cacheprofile(x, y, 2, 0, 0, &f) == FIT_EINPUT);
}

static void statistics(void)
{
    /* statistics */
    double a[] = {1, 2, 4}, p[] = {1, 3, 4}, v;
    CHECK_NEAR(fit_rss(a, p, 3), 1, 1e-12);
    CHECK_NEAR(fit_smape(a, p, 3), 100.0 * (2.0 * 1 / 5) / 3, 1e-12);
    CHECK(fit_mape(a, p, 3, &v) == FIT_OK);
    CHECK_NEAR(v, 100.0 * 0.5 / 3, 1e-12);
    double zero[] = {0, 1, 2};
    CHECK(fit_mape(zero, p, 3, &v) == FIT_EINPUT);
    CHECK(isnan(fit_adj_r2(a, p, 3, 2)));

    /* SMAPE terms 200 |a - p| / (|a| + |p|): 0, 200/5 = 40, 400/6 = 66.67, and 0 for 0 vs 0 */
    double sa[] = {1, 2, 4, 0}, sp[] = {1, 3, 2, 0}, t[4];
    fit_smape_terms(sa, sp, 4, t);
    CHECK(t[0] == 0 && t[3] == 0);
    CHECK_NEAR(t[1], 40, 1e-12);
    CHECK_NEAR(t[2], 200.0 / 3, 1e-12);
    CHECK_NEAR(fit_smape(sa, sp, 4), (40 + 200.0 / 3) / 4, 1e-12);
    /* differences below 1e-9 of the largest value are rounding, not 200% errors */
    double ra[] = {1e6, 0}, rp[] = {1e6 + 1e-4, 1e-14};
    fit_smape_terms(ra, rp, 2, t);
    CHECK(t[0] == 0 && t[1] == 0);
    CHECK(fit_smape(ra, ra, 0) == 0);
    /* MAPE 100/n sum |a - p| / |a|: (1/2 + 1/4 + 1/5) / 3 = 31.67% (signs do not matter) */
    double ma[] = {2, 4, -5}, mp[] = {1, 5, -4};
    CHECK(fit_mape(ma, mp, 3, &v) == FIT_OK);
    CHECK_NEAR(v, 100 * (0.5 + 0.25 + 0.2) / 3, 1e-12);
    /* R² for a = 1, 2, 4, 8 (mean 3.75, total sum of squares 28.75) against 1, 3, 4, 8
     * (RSS 1): 1 - 1/28.75; adjusted for k parameters 1 - (1/28.75)(n - 1)/(n - k - 1) */
    double a4[] = {1, 2, 4, 8}, p4[] = {1, 3, 4, 8};
    CHECK_NEAR(fit_r2(a4, p4, 4), 1 - 1 / 28.75, 1e-12);
    CHECK_NEAR(fit_adj_r2(a4, p4, 4, 1), 1 - (1 / 28.75) * 3 / 2, 1e-12);
    CHECK_NEAR(fit_adj_r2(a4, p4, 4, 2), 1 - (1 / 28.75) * 3, 1e-12);
    CHECK(isnan(fit_adj_r2(a4, p4, 4, 3)));
    double flat[] = {2, 2, 2};
    CHECK(fit_r2(flat, flat, 3) == 1);   /* nothing to explain */
}

static void pmnf_basics(void)
{
    /* exact laws are found exactly */
    double px[7], py[7];
    for (int i = 0; i < 7; i++) {
        px[i] = pow(2, i);
        py[i] = 3 + 100 / px[i];
    }
    struct pmnf_options opt = {.negative = 1};
    struct pmnf_model m;
    CHECK(fit_pmnf(px, 1, py, 7, &opt, &m) == FIT_OK);
    CHECK(m.e[0] == -1 && m.l[0] == 0);
    CHECK_NEAR(m.c[0], 3, 1e-9);
    opt.negative = 0; /* Extra-P's default space cannot express strong scaling */
    CHECK(fit_pmnf(px, 1, py, 7, &opt, &m) == FIT_OK);
    CHECK(m.e[0] >= 0);

    /* three process counts tell only integer powers apart (Extra-P asks for five values) */
    double p3[] = {1, 2, 4}, y3[] = {50 * 1.01, 52 * 0.99, 58 * 1.01};
    CHECK(fit_pmnf(p3, 1, y3, 3, &opt, &m) == FIT_OK);
    CHECK(m.l[0] == 0 && m.e[0] == round(m.e[0]));

    /* the mixed forms of two parameters (c0 + c1·f + c2·f·g, the corner kernels of issue 13:
     * c0 + c1·n·log2²n + c2·log2 p·n·log2²n) and three parameters are found exactly */
    double x2[2 * 36], y2[36], at2[2] = {256, 4096};
    int n2 = 0;
    for (double p = 2; p <= 64; p *= 2)
        for (double m = 128; m <= 4096; m *= 2) {
            x2[2 * n2] = p;
            x2[2 * n2 + 1] = m;
            y2[n2++] = 50 + 0.3 * m * log2(m) * log2(m) + 0.02 * log2(p) * m * log2(m) * log2(m);
        }
    double law2 = 50 + 0.3 * 4096 * 144 + 0.02 * 8 * 4096 * 144;
    opt.negative = 1;
    CHECK(fit_pmnf(x2, 2, y2, n2, &opt, &m) == FIT_OK);
    CHECK(m.nterms == 2);
    CHECK_NEAR(pmnf_eval(&m, at2) / law2, 1, 1e-6);
    double x3[3 * 64], y3b[64], at3[3] = {64, 64, 64};
    int n3 = 0;
    for (double p = 2; p <= 16; p *= 2)
        for (double a = 2; a <= 16; a *= 2)
            for (double b = 2; b <= 16; b *= 2) {
                x3[3 * n3] = p;
                x3[3 * n3 + 1] = a;
                x3[3 * n3 + 2] = b;
                y3b[n3++] = 7 + 3 * a * b / p + 2 * b;
            }
    CHECK(fit_pmnf(x3, 3, y3b, n3, &opt, &m) == FIT_OK);
    CHECK_NEAR(pmnf_eval(&m, at3) / (7 + 3 * 64 + 128), 1, 1e-6);
    struct pmnf_model ranked[8];
    int nr = fit_pmnf_ranked(x3, 3, y3b, n3, &opt, ranked, 8);
    CHECK(nr >= 1 && ranked[0].score <= 1e-6 && !isnan(ranked[0].extrap_smape));

    /* a constant is the constant model */
    double cy[7] = {7, 7, 7, 7, 7, 7, 7};
    opt.negative = 1;
    CHECK(fit_pmnf(px, 1, cy, 7, &opt, &m) == FIT_OK);
    CHECK(m.e[0] == 0 && m.l[0] == 0);
    CHECK_NEAR(m.c[0], 7, 1e-12);

    /* the formula names the parameter */
    const char *names[] = {"p"};
    opt.names = names;
    for (int i = 0; i < 7; i++)
        py[i] = 5 + 2 * px[i] * log2(px[i]);
    CHECK(fit_pmnf(px, 1, py, 7, &opt, &m) == FIT_OK);
    CHECK_STR(m.formula, "5 + 2 * p * log2(p)");
    CHECK_NEAR(pmnf_eval(&m, (double[]){1024}), 5 + 2 * 1024 * 10, 1e-9);
    CHECK(m.fit_smape < 1e-9 && m.loo_smape < 1e-9);
    double fy[7];
    for (int i = 0; i < 7; i++)
        fy[i] = 50 - 3 * sqrt(px[i]);
    struct pmnf_model fm;
    CHECK(fit_pmnf(px, 1, fy, 7, &opt, &fm) == FIT_OK);
    CHECK_STR(fm.formula, "50 - 3 * p^(0.5)");
    char tidy[] = "400 * n + -0", kept[] = "400 * n + 0.5";
    formula_tidy(tidy);
    formula_tidy(kept);
    CHECK_STR(tidy, "400 * n");
    CHECK_STR(kept, "400 * n + 0.5");
    char zero[] = "0 + 1 * p", minus[] = "-0 + -1 * p^(0.5) + 21 * n + 0.1 * p", one[] = "1 * n";
    formula_tidy(zero);
    formula_tidy(minus);
    formula_tidy(one);
    CHECK_STR(zero, "p");
    CHECK_STR(minus, "-p^(0.5) + 21 * n + 0.1 * p");
    CHECK_STR(one, "n");

    /* what cannot be fitted */
    CHECK(fit_pmnf(px, 1, py, 2, &opt, &m) == FIT_EINPUT);   /* fewer than 3 points */
    CHECK(fit_pmnf(px, 3, py, 2, &opt, &m) == FIT_EINPUT);   /* 3 parameters */
    double x0[] = {0, 1, 2, 4}, xy[] = {1, 2, 3, 4}, ny[] = {1, NAN, 3, 4};
    CHECK(fit_pmnf(x0, 1, xy, 4, &opt, &m) == FIT_EINPUT);   /* x must be > 0 */
    CHECK(fit_pmnf(x0 + 1, 1, ny, 3, &opt, &m) == FIT_EINPUT); /* y must be finite */
}

/* Exact data c0 + c1 · p^k · log2(p)^j at p = 2..1024 for every exponent k of the search
 * space (negative ones too) and j = 0, 1, 2: the search finds k and j, and c0 = 5, c1 = 2. */
static void pmnf_exact_laws(void)
{
    static const double ks[] = {0,      0.25,  1. / 3, 0.5,  2. / 3, 0.75, 0.8,
                                1,      1.25,  4. / 3, 1.5,  5. / 3, 1.75, 2,
                                2.25,   7. / 3, 2.5,   8. / 3, 2.75, 3};
    const int nk = sizeof ks / sizeof ks[0];
    struct pmnf_options opt = {.negative = 1};
    int laws = 0, wrong = 0;
    for (int sign = 1; sign >= -1; sign -= 2)
        for (int i = 0; i < nk; i++)
            for (int j = 0; j <= 2; j++) {
                double k = sign * ks[i];
                if ((i == 0 && sign < 0) || (k == 0 && j == 0))
                    continue; /* k = -0 is k = 0; k = j = 0 is the constant */
                double p[10], y[10];
                for (int q = 0; q < 10; q++) {
                    p[q] = ldexp(1, q + 1);
                    y[q] = 5 + 2 * pow(p[q], k) * pow(q + 1, j); /* log2(2^(q+1)) = q + 1 */
                }
                struct pmnf_model m;
                laws++;
                int rc = fit_pmnf(p, 1, y, 10, &opt, &m);
                if (rc != FIT_OK || fabs(m.e[0] - k) > 1e-12 || m.l[0] != j ||
                    fabs(m.c[0] - 5) > 1e-6 * 5 || fabs(m.c[1] - 2) > 1e-6 * 2) {
                    fprintf(stderr, "law 5 + 2 p^%g log2(p)^%d: rc %d, found %s\n", k, j, rc,
                            rc == FIT_OK ? m.formula : "nothing");
                    wrong++;
                }
            }
    CHECK_INT(laws, 2 * 20 * 3 - 3 - 1);
    CHECK_INT(wrong, 0);
}

/* Two parameters on the 5 x 5 grid p = 2..32, n = 64..1024: an additive law and a
 * multiplicative one, each term and coefficient exactly. */
static void pmnf_two_parameters(void)
{
    double x[50], ya[25], ym[25];
    int n = 0;
    for (double p = 2; p <= 32; p *= 2)
        for (double s = 64; s <= 1024; s *= 2) {
            x[2 * n] = p;
            x[2 * n + 1] = s;
            ya[n] = 3 + 2 * p + 0.5 * s * s;
            ym[n++] = 1 + 0.01 * p * s * log2(s);
        }
    struct pmnf_options opt = {.negative = 1};
    struct pmnf_model m;
    CHECK(fit_pmnf(x, 2, ya, n, &opt, &m) == FIT_OK);
    CHECK(m.nparams == 2 && m.nterms == 2 && m.mask[0] == 1 && m.mask[1] == 2);
    CHECK(m.e[0] == 1 && m.l[0] == 0 && m.e[1] == 2 && m.l[1] == 0);
    CHECK_NEAR(m.c[0], 3, 1e-6);
    CHECK_NEAR(m.c[1], 2, 1e-6);
    CHECK_NEAR(m.c[2], 0.5, 1e-6);
    CHECK_STR(m.formula, "3 + 2 * x + 0.5 * y^(2)");
    CHECK(fit_pmnf(x, 2, ym, n, &opt, &m) == FIT_OK);
    CHECK(m.nparams == 2 && m.nterms == 1 && m.mask[0] == 3);
    CHECK(m.e[0] == 1 && m.l[0] == 0 && m.e[1] == 1 && m.l[1] == 1);
    CHECK_NEAR(m.c[0], 1, 1e-6);
    CHECK_NEAR(m.c[1], 0.01, 1e-6);
    CHECK_NEAR(pmnf_eval(&m, (double[]){128, 4096}), 1 + 0.01 * 128 * 4096 * 12, 1e-9);
}

/* How many of 200 noise draws (uniform noise of ±amp, seeded from seed) of law on the points
 * of the grid p = 8..p_hi (doubling) x n = 2000..n_hi (step 2000) that keep admits predict law
 * at (tp, tn) within tol. */
struct grid_study {
    double (*law)(double p, double n);
    int (*keep)(double p, double n);
    double p_hi, n_hi, amp, tp, tn, tol;
    uint64_t seed;
};

static int grid_draws(const struct grid_study *g)
{
    int ok = 0;
    for (int s = 0; s < 200; s++) {
        double x[48], y[24];
        int n = 0;
        lcg = g->seed + (uint64_t)s * 7919;
        for (double p = 8; p <= g->p_hi; p *= 2)
            for (double m = 2000; m <= g->n_hi; m += 2000) {
                if (!g->keep(p, m))
                    continue;
                x[2 * n] = p;
                x[2 * n + 1] = m;
                y[n++] = g->law(p, m) * (1 + g->amp / 0.05 * (noise() - 1));
            }
        struct pmnf_options opt = {.negative = 1};
        struct pmnf_model mo;
        if (fit_pmnf(x, 2, y, n, &opt, &mo) != FIT_OK)
            continue;
        double want = g->law(g->tp, g->tn);
        ok += fabs(pmnf_eval(&mo, (double[]){g->tp, g->tn}) - want) <= g->tol * want;
    }
    return ok;
}

/* The form that dominates a real two-parameter set (issue 13: c0 + c1·n·log2²n +
 * c2·log2 p·n·log2²n), on the grid p = 8..128 x n = 2000..10000. */
static double corner_law(double p, double n)
{
    double l2 = log2(n) * log2(n);
    return 40 + 2e-4 * n * l2 + 3e-5 * log2(p) * n * l2;
}

static int all_but_corner(double p, double n)
{
    return !(p == 128 && n == 10000);
}

static int below_corner(double p, double n)
{
    return p < 128 && n < 10000;
}

/* How many of 200 noise draws predict corner_law within 5% at the corner (128, 10000): from
 * all other points, or (below) from the 4 x 4 points where neither parameter is largest. */
static int grid_corner(int below)
{
    struct grid_study g = {corner_law, below ? below_corner : all_but_corner, 128, 10000, 0.05,
                           128, 10000, 0.05, 5000};
    return grid_draws(&g);
}

/* Each parameter's term chosen on the curve averaged over the complete groups of the other:
 * scored group by group instead, the flat n·log2 n won the groups and 66 of the 200 draws
 * were within 5% from all other points (180 now). From the 4 x 4 points below, four values
 * of n on an averaged curve admit n·log2² n: 48 of 200 were within 5% with the simple terms
 * only (100 now). */
static void pmnf_grid_corner(void)
{
    int all = grid_corner(0), below = grid_corner(1);
    printf("grid corner: %d of 200 noise draws within 5%% from all other points, %d from "
           "the points below\n", all, below);
    CHECK(all >= 150);
    CHECK(below >= 70);
}

/* A tree's 0.5 + 0.3·log2 p that does not depend on n, and 3 + 1e-3·n·log2 p. */
static double tree_law(double p, double n)
{
    (void)n;
    return 0.5 + 0.3 * log2(p);
}

static double product_law(double p, double n)
{
    return 3 + 1e-3 * n * log2(p);
}

static double strong_law(double p, double n)
{
    return 2 + 1e-4 * n * n / p;
}

static int below_largest_p(double p, double n)
{
    (void)n;
    return p < 64;
}

/* How many of 200 noise draws predict the largest p of a 4 x 4 grid (p = 8..64, n =
 * 2000..8000) within 10% from its three smaller values of p, with uniform noise of ±amp. */
static int grid_row(double (*law)(double, double), double amp)
{
    struct grid_study g = {law, below_largest_p, 64, 8000, amp, 64, 8000, 0.10, 9000};
    return grid_draws(&g);
}

/* Three values of p on a curve averaged over the four values of n admit log2 p: with the
 * integer powers alone, 14 and 0 of the 200 draws were within 10% at ±5% noise (178 and 184
 * now). Three values that rise admit no negative exponent: with them (a rise that levels
 * off, c - a/p, fitting the noise) 125 and 123 were within 10% at ±10% noise (149 and 153
 * now). Strong scaling, 2 + 1e-4·n²/p, 187 and 131 at ±5% and ±10%: where each parameter of
 * three values kept the term its averaged curve scored best, 107 and 69 (p^-1 became
 * p^(-3/2)·log2 p and the like; docs/design.md 3.4). */
static void pmnf_grid_row(void)
{
    int tree = grid_row(tree_law, 0.05), product = grid_row(product_law, 0.05);
    int tree10 = grid_row(tree_law, 0.10), product10 = grid_row(product_law, 0.10);
    int strong = grid_row(strong_law, 0.05), strong10 = grid_row(strong_law, 0.10);
    printf("grid row: %d and %d of 200 noise draws within 10%% at the largest p (5%% noise), "
           "%d and %d at 10%% noise; strong scaling %d and %d\n",
           tree, product, tree10, product10, strong, strong10);
    CHECK(tree >= 150);
    CHECK(product >= 150);
    CHECK(tree10 >= 140);
    CHECK(product10 >= 140);
    CHECK(strong >= 160);
    CHECK(strong10 >= 110);
}

/* Laws of one parameter that three values of it tell apart from a line once the noise is
 * low: a tree's log2 p, a 2-D surface's p^(1/2), a sort's p·log2 p. */
static double one_law(int which, double p)
{
    return which == 0 ? 3 + 2 * log2(p) : which == 1 ? 1 + 0.5 * sqrt(p) : 5 + 0.2 * p * log2(p);
}

/* How many of 200 noise draws predict one_law at p = 64 within 10% from p = 8, 16, 32, each
 * value the median of 3 runs with ±5% noise, searched as repeated values or as single runs. */
static int three_values(int which, int repeated)
{
    int ok = 0;
    for (int s = 0; s < 200; s++) {
        double x[3] = {8, 16, 32}, y[3];
        lcg = 4200 + (uint64_t)s * 7919;
        for (int i = 0; i < 3; i++) {
            double a = noise(), b = noise(), c = noise(); /* the median of three */
            double m = fmax(fmin(a, b), fmin(fmax(a, b), c));
            y[i] = one_law(which, x[i]) * m;
        }
        struct pmnf_options opt = {.negative = 1, .repeated = repeated};
        struct pmnf_model mo;
        if (fit_pmnf(x, 1, y, 3, &opt, &mo) != FIT_OK)
            continue;
        double want = one_law(which, 64);
        ok += fabs(pmnf_eval(&mo, (double[]){64}) - want) <= 0.1 * want;
    }
    return ok;
}

/* Three values admit the terms of complexity 2 where each is the median of repetitions
 * (pmnf_options.repeated): 161, 119 and 124 of the draws within 10% at 64, where the integer
 * powers alone (single runs: richer terms would fit the noise, and the interval could not see
 * it) give 0, 21 and 15. */
static void pmnf_three_repeated(void)
{
    for (int which = 0; which < 3; which++) {
        int rep = three_values(which, 1), single = three_values(which, 0);
        printf("three values, law %d: %d of 200 draws within 10%% at 64 as medians of "
               "repetitions, %d as single runs\n", which, rep, single);
        CHECK(rep >= 100);
    }
}

static void pmnf_noise(void)
{
    /* 5% noise: each law predicted 4x beyond the data within 10% in >= 95% of the draws */
    for (int which = 0; which < 4; which++) {
        double rate = recovery_rate(which, 200);
        printf("law %d: %.1f%% of 200 noise draws within 10%% at 4x\n", which, 100 * rate);
        CHECK(rate >= 0.95);
    }
}

/* fit_trend at 8 scales × 3 repetitions with 5% noise: how often a flat series is called a
 * trend (the three tests at 5% each), how often an 8% rise over the range is found; no
 * repetitions, equal values; a second parameter that alone changes the value. */
static void trend(void)
{
    const char *names[] = {"n", "p"};
    double x[64], y[64];
    int scale[64], flat = 0, rise = 0;
    struct trend_result r;
    lcg = 7;
    for (int draw = 0; draw < 200; draw++) {
        for (int law = 0; law < 2; law++) {
            for (int i = 0; i < 24; i++) {
                scale[i] = i / 3;
                x[i] = 64 + 32 * scale[i];
                y[i] = (law ? 1 + 0.08 * scale[i] / 7 : 1) * noise();
            }
            CHECK_INT(fit_trend(x, 1, names, scale, 8, y, 24, &r), FIT_OK);
            *(law ? &rise : &flat) += r.trend;
        }
    }
    printf("trend: a flat series called a trend in %d of 200 noise draws, an 8%% rise found "
           "in %d\n", flat, rise);
    CHECK(flat <= 30);
    CHECK(rise >= 190);
    CHECK_INT(fit_trend(x, 1, names, scale, 8, y, 8, &r), FIT_EINPUT); /* one value a scale */
    for (int i = 0; i < 24; i++)
        y[i] = 0;
    CHECK_INT(fit_trend(x, 1, names, scale, 8, y, 24, &r), FIT_OK);
    CHECK(!r.trend && r.h == 0);
    /* n = 64..320 at p = 1 and 2, each twice: the value is 1e-5 at one rank, 1e-2 at two
     * (a collective's waits), whatever n */
    for (int i = 0; i < 24; i++) {
        scale[i] = i / 2;
        x[2 * i] = 64 + 32 * (scale[i] % 6);
        x[2 * i + 1] = scale[i] < 6 ? 1 : 2;
        y[i] = (scale[i] < 6 ? 1e-5 : 1e-2) * noise();
    }
    CHECK_INT(fit_trend(x, 2, names, scale, 12, y, 24, &r), FIT_OK);
    CHECK(r.trend);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* The whole file at path, NUL-terminated (the caller frees it). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = calloc(1, 1 << 20);
    size_t n = f && text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    if (text)
        text[n] = '\0';
    return text;
}

static const struct prof_row *rank_row(const struct profile *r, const char *name)
{
    return rowset_find(&r->rows, ROW_RANK, name, NULL);
}

static void extrap(void)
{
    char dir[] = "/tmp/tardy-unit-XXXXXX", path[600], err[700], want[800];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/in.txt", dir);
    struct profile *runs;

    /* A file of another tool: a run per value (repetition j of every point, then j + 1: p
     * from the parameter p, the others run parameters), every region/metric pair a per-rank
     * metric with the value for every rank; a point with fewer values has fewer runs. */
    write_file(path, "# from Extra-P\nPARAMETER p n\nPOINTS (2 64) (4 64) (8 128)\n\n"
                     "REGION solve\nMETRIC time\nDATA 1 3\nDATA 2\nDATA 4 4 5\n");
    int n = extrap_read(path, &runs, err, sizeof err);
    CHECK_INT(n, 6);
    if (n == 6) {
        const int ranks[] = {2, 4, 8, 2, 8, 8};
        const double value[] = {1, 2, 4, 3, 4, 5};
        for (int i = 0; i < 6; i++) {
            const struct prof_row *r = rank_row(&runs[i], "solve/time");
            CHECK_INT(runs[i].ranks, ranks[i]);
            CHECK(r && r->n.time.max == value[i] && r->n.time.ranks == (uint32_t)ranks[i]);
            CHECK_NEAR(r ? r->n.time.sum : 0, ranks[i] * value[i], 1e-15);
        }
        CHECK(runs[5].nparams == 1 && !strcmp(runs[5].params[0].key, "n") &&
              !strcmp(runs[5].params[0].value, "128"));
        store_free(runs, n);
    }

    /* tardy's own export and back: runs at p = 2, 4 and twice 8 (one point, two values: the
     * same four runs again), rows some runs lack (absent again after the round trip) */
    struct profile in[4];
    const double tsum[] = {3, 8, 24, 40}, tmax[] = {2, 3, 4, 6};
    const char *send = "MPI_Send@main a.c:1", *bcast = "MPI_Bcast@main a.c:2";
    for (int i = 0; i < 4; i++) {
        profile_init(&in[i]);
        in[i].program = strdup("/x/app");
        in[i].ranks = i < 2 ? 2 << i : 8;
        CHECK(profile_set_params(&in[i], "n=64", err, sizeof err) == 0);
        struct prof_row *r = rowset_get(&in[i].rows, ROW_MPI, send, NULL);
        r->n.time = (struct red_stat){.sum = tsum[i], .max = tmax[i], .ranks = in[i].ranks};
        r->n.count = (struct red_stat){.sum = 10 * in[i].ranks, .max = 10,
                                       .ranks = in[i].ranks};
        if (i >= 2) {
            r = rowset_get(&in[i].rows, ROW_MPI, bcast, NULL);
            r->n.time = (struct red_stat){.sum = 8, .max = 1, .ranks = 8};
        }
    }
    struct prof_row *c = rowset_get(&in[1].rows, ROW_RANK, "compute", NULL);
    c->n.time = (struct red_stat){.sum = 20, .max = 6, .ranks = 4};
    FILE *f = fopen(path, "w");
    CHECK_INT(extrap_write(in, 4, f), 3);                 /* Send, Bcast, compute */
    fclose(f);
    const char *top = "PARAMETER p n\nPOINTS (2 64) (4 64) (8 64)\nREGION ";
    char head[128] = "";
    f = fopen(path, "r");
    CHECK(fread(head, 1, strlen(top), f) == strlen(top));
    fclose(f);
    CHECK_STR(head, top);
    n = extrap_read(path, &runs, err, sizeof err);
    CHECK_INT(n, 4);
    if (n == 4) {
        const struct prof_row *r;
        for (int k = 0; k < 4; k++) {
            r = rowset_find(&runs[k].rows, ROW_MPI, send, NULL);
            CHECK_INT(runs[k].ranks, in[k].ranks);
            CHECK(r && r->n.time.sum == tsum[k] && r->n.time.max == tmax[k]);
            CHECK(r && r->n.count.sum == 10 * runs[k].ranks);
        }
        CHECK(!rowset_find(&runs[0].rows, ROW_MPI, bcast, NULL));
        CHECK(!rowset_find(&runs[1].rows, ROW_MPI, bcast, NULL));
        for (int k = 2; k < 4; k++) {
            r = rowset_find(&runs[k].rows, ROW_MPI, bcast, NULL);
            CHECK(r && r->n.time.sum == 8 && r->n.time.max == 1);
        }
        r = rank_row(&runs[1], "compute");
        CHECK(r && r->n.time.sum == 20 && r->n.time.max == 6);
        CHECK(!rank_row(&runs[0], "compute") && !rank_row(&runs[2], "compute") &&
              !rank_row(&runs[3], "compute"));
        store_free(runs, n);
    }
    for (int i = 0; i < 4; i++)
        profile_free(&in[i]);

    /* errors: the file and the line */
    static const struct {
        const char *text;
        int line;
        const char *what;
    } bad[] = {
        {"POINTS 2 4\n", 1, "POINTS before PARAMETER"},
        {"PARAMETER p\nPOINTS 2 x\n", 2, "POINTS holds something that is not a number"},
        {"PARAMETER p n\nPOINTS (2 64) (4)\n", 2, "point 2, (4), has 1 value for 2 parameters (p n)"},
        {"PARAMETER p n\nPOINTS 2 64 4 64\n", 2,
         "the points of 2 parameters go in parentheses, a group per point: (p n) (p n) ..."},
        {"PARAMETER\nPOINTS 2 4\n", 1, "PARAMETER names no parameter"},
        {"PARAMETER p\nPOINTS 2 1e400\n", 2, "POINTS holds 1e400, beyond a double's range (1.8e308)"},
        {"PARAMETER p\nPOINTS 2 4\nREGION r\x01\xff\n", 3, "byte 0xff at column 10 is not UTF-8"},
        {"PARAMETER p\nPOINTS 2 4\nDATA 1\n", 3, "DATA before REGION"},
        {"PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA 1\nDATA 2\nDATA 3\n", 7,
         "more DATA lines than POINTS"},
        {"PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA 1\nDATA x\n", 6,
         "DATA holds something that is not a number"},
        {"PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA 1\nDATA 0x4\n", 6,
         "DATA holds something that is not a number"}, /* strtod took 0x4 as 4 */
        {"PARAMETER p\nPOINTS 2 inf\n", 2, "POINTS holds something that is not a number"},
        {"PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA\n", 5, "DATA without values"},
        {"PARAMETER p\nFOO 1\n", 2,
         "unknown field (expected PARAMETER, POINTS, REGION, METRIC or DATA)"},
        {"PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA 1\nDATA 2\nREGION r\nMETRIC m\n"
         "DATA 3\n",
         9, "REGION r with METRIC m a second time (one block each; a point's repetitions go "
            "on its DATA line)"},
        {"PARAMETER p\nPOINTS 2 4\n", 0, "no data"}, /* the file as a whole: no line */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i].text);
        if (bad[i].line)
            snprintf(want, sizeof want, "%s:%d: %s", path, bad[i].line, bad[i].what);
        else
            snprintf(want, sizeof want, "%s: %s", path, bad[i].what);
        err[0] = '\0';
        CHECK_INT(extrap_read(path, &runs, err, sizeof err), -1);
        CHECK_STR(err, want);
        CHECK(runs == NULL);
    }
    /* a DATA line of 4097 values, and one of 70,000 characters: said, not cut short */
    static const struct {
        int values;
        const char *what;
    } longer[] = {{4097, "DATA holds more than 4096 values"},
                  {35000, "line longer than 65535 characters"}};
    for (size_t i = 0; i < sizeof longer / sizeof longer[0]; i++) {
        const char *head = "PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA";
        char *text = malloc(strlen(head) + 2 * (size_t)longer[i].values + 2);
        char *at = text + sprintf(text, "%s", head);
        for (int v = 0; v < longer[i].values; v++)
            at += sprintf(at, " 1");
        sprintf(at, "\n");
        write_file(path, text);
        free(text);
        snprintf(want, sizeof want, "%s:5: %s", path, longer[i].what);
        CHECK_INT(extrap_read(path, &runs, err, sizeof err), -1);
        CHECK_STR(err, want);
    }
    /* names as Extra-P reads them: without the blanks that end a line, and whole however
     * long (two call paths alike in their first 1,100 characters stay two) */
    char long_a[1200], long_b[1200], text[3000];
    memset(long_a, 'x', 1100);
    memcpy(long_b, long_a, 1100);
    strcpy(long_a + 1100, "_a");
    strcpy(long_b + 1100, "_b");
    snprintf(text, sizeof text, "PARAMETER p\nPOINTS 2 4\nREGION r \t\nMETRIC m  \nDATA 1\n"
             "DATA 2\nREGION %s\nDATA 3\nDATA 4\nREGION %s\nDATA 5\nDATA 6\n", long_a, long_b);
    write_file(path, text);
    CHECK_INT(extrap_read(path, &runs, err, sizeof err), 2);
    char key_a[1300], key_b[1300];
    snprintf(key_a, sizeof key_a, "%s/m", long_a);
    snprintf(key_b, sizeof key_b, "%s/m", long_b);
    const struct prof_row *named = rank_row(&runs[1], "r/m"), *a = rank_row(&runs[1], key_a),
                          *b = rank_row(&runs[1], key_b);
    CHECK(named && named->n.time.max == 2);
    CHECK(a && a->n.time.max == 4 && b && b->n.time.max == 6);
    store_free(runs, 2);
    unlink(path);
    CHECK_INT(extrap_read(path, &runs, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot open", path);
    CHECK_STR(err, want);
    CHECK(rmdir(dir) == 0);
}

/* The run store keeps the newest runs of the program within its bound, and reads no further
 * once the bound is full; other programs' runs are skipped with a warning. */
static int store_warnings;
static char store_said[2048]; /* the warnings, one a line */
static void count_warning(const char *message, void *arg)
{
    (void)arg;
    store_warnings++;
    size_t at = strlen(store_said);
    snprintf(store_said + at, sizeof store_said - at, "%s\n", message);
}

/* A run of program at ranks, started at start, for a test store (rows added by the caller). */
static void new_run(struct profile *p, const char *program, int ranks, const char *start)
{
    profile_init(p);
    p->program = strdup(program);
    p->ranks = ranks;
    p->start_time = strdup(start);
}

/* The bound keeps the newest runs up to the first that would pass it, whatever order the
 * files are read in: runs of 6, 6 and 1 rows (newest first) within 10 rows are the newest
 * alone, on both paths, for each order the three files can be written (and named) in. */
static void store_order(void)
{
    static const char *const start[3] = {"2026-01-03T00:00:00", "2026-01-02T00:00:00",
                                         "2026-01-01T00:00:00"};
    static const int rows[3] = {6, 6, 1}, orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                                        {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const struct store_bound bound = {10, 10};
    for (int o = 0; o < 6; o++) {
        char dir[] = "/tmp/tardy-unit-XXXXXX", err[512];
        CHECK(mkdtemp(dir) != NULL);
        struct profile in[3];
        for (int q = 0; q < 3; q++) {
            int i = orders[o][q];
            new_run(&in[q], "/x/app", 1, start[i]);
            rowset_get(&in[q].rows, ROW_MPI, "MPI_Send@main a.c:1", NULL);
            for (int r = 1; r < rows[i]; r++) {
                char name[16];
                snprintf(name, sizeof name, "m%d", r);
                rowset_get(&in[q].rows, ROW_RANK, name, NULL);
            }
            CHECK_INT(profile_write(&in[q], dir, err, sizeof err), 0);
        }
        for (int offline = 0; offline < 2; offline++) {
            struct profile *runs;
            int n = store_load(dir, offline ? NULL : &in[0], NULL, &bound, &runs, count_warning,
                               NULL, err, sizeof err);
            CHECK_INT(n, 1);
            CHECK(n == 1 && !strcmp(runs[0].start_time, start[0]));
            store_free(runs, n);
        }
        for (int q = 0; q < 3; q++) {
            unlink(in[q].path);
            profile_free(&in[q]);
        }
        CHECK(rmdir(dir) == 0);
    }
}

/* A stored profile's head gives its program, start time and scale without the rest of the
 * file (the scale as the whole profile gives it); where the head does not hold them the file
 * is read in full. At finalize the store reads in full only the runs it keeps: an older run
 * with a broken body past the bound is never read (no warning about it), a newer one is
 * (one). */
static void store_heads(void)
{
    char dir[] = "/tmp/tardy-unit-XXXXXX", err[512], path[600];
    struct store_head h;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/head.json", dir);
    write_file(path, "{\"schema\":\"tardy-profile\",\"x\":{\"run\":{\"program\":\"no\"}},"
                     "\"args\":\"run\",\"run\" : {\"args\":[\"{\\\"}\"],\"program\":\"/x/app\","
                     "\"ranks\":4,\"params\":{\"steps\":100,\"mode\":\"fast\",\"n\":0.1},"
                     "\"start_time\":\"2026-01-01T00:00:00Z\"},\"mpi\":[");
    CHECK_INT(store_head(path, &h), 1);
    CHECK_STR(h.program, "/x/app");
    CHECK_STR(h.start, "2026-01-01T00:00:00Z");
    CHECK_STR(h.scale, "p=4,mode=fast,n=0.10000000000000001,steps=100");
    store_head_free(&h);
    struct profile whole;
    new_run(&whole, "/x/app", 4, "2026-01-01T00:00:00Z");
    CHECK(profile_set_params(&whole, "steps=100,mode=fast,n=0.1", err, sizeof err) == 0);
    CHECK_INT(profile_write(&whole, dir, err, sizeof err), 0);
    CHECK_INT(store_head(whole.path, &h), 1);
    struct profile back;
    profile_init(&back);
    CHECK_INT(profile_read(&back, whole.path, err, sizeof err), 0);
    char *scale = store_scale(back.ranks, back.params, back.nparams);
    CHECK_STR(h.scale, scale);
    free(scale);
    store_head_free(&h);
    unlink(whole.path);
    profile_free(&whole);
    profile_free(&back);
    /* the run object after 70,000 bytes, or not there: read in full */
    char *text = malloc(70100);
    memset(text, ' ', 70000);
    memcpy(text, "{\"pad\":\"", 8);
    text[69990] = '"';
    strcpy(text + 69991, ",\"run\":{\"program\":\"/x/app\"}}");
    write_file(path, text);
    free(text);
    CHECK_INT(store_head(path, &h), 0);
    CHECK(h.program == NULL && h.start == NULL && h.scale == NULL);
    write_file(path, "{\"run\":[1]}");
    CHECK_INT(store_head(path, &h), 0);
    unlink(path);
    CHECK_INT(store_head(path, &h), 0);

    struct profile in[3];
    for (int i = 0; i < 3; i++) { /* days 1, 2, 3 */
        char day[32];
        snprintf(day, sizeof day, "2026-01-0%dT00:00:00", i + 1);
        new_run(&in[i], "/x/app", 1, day);
        rowset_get(&in[i].rows, ROW_MPI, "MPI_Send@main a.c:1", NULL);
        CHECK_INT(profile_write(&in[i], dir, err, sizeof err), 0);
    }
    /* a run of day 0 (past the bound of two runs) and one of day 4, both cut after the head */
    static const char *const broken[2] = {"2026-01-00T00:00:00", "2026-01-04T00:00:00"};
    for (int b = 0; b < 2; b++) {
        snprintf(path, sizeof path, "%s/broken%d.json", dir, b);
        char head[300];
        snprintf(head, sizeof head, "{\"schema\":\"tardy-profile\",\"version\":2,\"run\":{"
                 "\"program\":\"/x/app\",\"ranks\":1,\"start_time\":\"%s\"},\"mpi\":[{", broken[b]);
        write_file(path, head);
    }
    const struct store_bound two = {2, 1000};
    struct profile *runs;
    store_warnings = 0;
    int n = store_load(dir, &in[0], NULL, &two, &runs, count_warning, NULL, err, sizeof err);
    CHECK_INT(n, 2); /* days 2 and 3; day 4 is unreadable (a warning), day 0 never read */
    CHECK(n == 2 && !strcmp(runs[0].start_time, in[1].start_time) &&
          !strcmp(runs[1].start_time, in[2].start_time));
    CHECK_INT(store_warnings, 2); /* the broken newest run, and the older runs left out */
    store_free(runs, n);
    for (int b = 0; b < 2; b++) {
        snprintf(path, sizeof path, "%s/broken%d.json", dir, b);
        unlink(path);
    }
    for (int i = 0; i < 3; i++) {
        unlink(in[i].path);
        profile_free(&in[i]);
    }
    CHECK(rmdir(dir) == 0);
}

/* Where not all runs fit, the newest at every scale are kept first, then the second newest
 * of each: 3 scales run one after the other, 3 repetitions each, within 4 runs keep the 3
 * scales, the newest scale twice; on both paths, with the scale from the head and from the
 * whole run (a run without a head). */
static void store_turns(void)
{
    char dir[] = "/tmp/tardy-unit-XXXXXX", err[512];
    CHECK(mkdtemp(dir) != NULL);
    struct profile in[9];
    for (int i = 0; i < 9; i++) { /* runs 0..8: n = 16 three times, then 32, then 64 */
        char start[32], n[16];
        snprintf(start, sizeof start, "2026-01-01T00:00:%02d", i);
        snprintf(n, sizeof n, "n=%d", 16 << (i / 3));
        new_run(&in[i], "/x/app", 2, start);
        CHECK(profile_set_params(&in[i], n, err, sizeof err) == 0);
        rowset_get(&in[i].rows, ROW_MPI, "MPI_Send@main a.c:1", NULL);
        CHECK_INT(profile_write(&in[i], dir, err, sizeof err), 0);
    }
    /* run 1 without a head: its run object past the first 64 KB */
    char *text = read_file(in[1].path);
    CHECK(text[0] == '{');
    FILE *f = fopen(in[1].path, "w");
    fprintf(f, "{\"pad\":\"%*s\",%s", 70000, "", text + 1);
    fclose(f);
    free(text);
    const struct store_bound four = {4, 1000};
    for (int offline = 0; offline < 2; offline++) {
        struct profile *runs;
        store_warnings = 0;
        store_said[0] = '\0';
        int n = store_load(dir, offline ? NULL : &in[0], NULL, &four, &runs, count_warning, NULL,
                           err, sizeof err);
        CHECK_INT(n, 4); /* oldest first: runs 2, 5, 7, 8 */
        static const char want_runs[] = "2578";
        for (int i = 0; i < n && i < 4; i++)
            CHECK(runs[i].start_time && runs[i].start_time[18] == want_runs[i]);
        char want[512];
        snprintf(want, sizeof want, "4 runs (the newest at each of its 3 scales first) of app in "
                 "%s are used, 5 others are not (at most 4 runs and 1000 rows are kept)\n", dir);
        CHECK_STR(store_said, want);
        store_free(runs, n);
    }
    /* within 2 runs: two of the three scales, the newest */
    const struct store_bound two = {2, 1000};
    struct profile *runs;
    store_said[0] = '\0';
    int n = store_load(dir, &in[0], NULL, &two, &runs, count_warning, NULL, err, sizeof err);
    CHECK_INT(n, 2);
    CHECK(n == 2 && runs[0].start_time[18] == '5' && runs[1].start_time[18] == '8');
    char want[512];
    snprintf(want, sizeof want, "2 runs (the newest at 2 of its 3 scales) of app in %s are used, "
             "7 others are not (at most 2 runs and 1000 rows are kept)\n", dir);
    CHECK_STR(store_said, want);
    store_free(runs, n);
    for (int i = 0; i < 9; i++) {
        unlink(in[i].path);
        profile_free(&in[i]);
    }
    CHECK(rmdir(dir) == 0);
}

static void store_bound(void)
{
    char dir[] = "/tmp/tardy-unit-XXXXXX", err[512];
    CHECK(mkdtemp(dir) != NULL);
    struct profile in[6];
    for (int i = 0; i < 6; i++) { /* runs 0..4 of app, started one day after another; 5 other */
        char start[32];
        snprintf(start, sizeof start, "2026-01-0%dT00:00:00", i + 1);
        new_run(&in[i], i < 5 ? "/x/app" : "/x/other", 2, start);
        for (int r = 0; r < 3; r++) {
            char site[32];
            snprintf(site, sizeof site, "MPI_Send@main a.c:%d", r + 1);
            struct prof_row *row = rowset_get(&in[i].rows, ROW_MPI, site, NULL);
            row->n.time = (struct red_stat){.sum = i + 1, .max = i + 1, .ranks = 2};
        }
        CHECK_INT(profile_write(&in[i], dir, err, sizeof err), 0);
    }
    struct profile *runs;
    const struct store_bound three = {3, 1000}, rows = {10, 7};
    int n = store_load(dir, &in[0], NULL, &three, &runs, count_warning, NULL, err, sizeof err);
    CHECK_INT(n, 3);
    for (int i = 0; i < n; i++) /* the newest three, oldest first: the 3rd, 4th, 5th */
        CHECK(runs[i].start_time && runs[i].start_time[9] == '3' + i);
    store_free(runs, n);
    store_warnings = 0;
    n = store_load(dir, NULL, NULL, &rows, &runs, count_warning, NULL, err, sizeof err);
    CHECK_INT(n, 2); /* 3 rows each: two within 7 rows, oldest first */
    for (int i = 0; i < n; i++)
        CHECK(runs[i].start_time && runs[i].start_time[9] == '4' + i);
    CHECK_INT(store_warnings, 2); /* the other program, and the runs left out */
    store_free(runs, n);
    /* at finalize, six more runs of four programs: the runs of other programs in one line,
     * the first four programs (files in name order) by name */
    struct profile more[6];
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "/y/tool%d", i / 2);
        new_run(&more[i], i < 5 ? name : "/y/last", 1, "2026-02-01T00:00:00");
        CHECK_INT(profile_write(&more[i], dir, err, sizeof err), 0);
    }
    store_warnings = 0;
    store_said[0] = '\0';
    n = store_load(dir, &in[0], NULL, &three, &runs, count_warning, NULL, err, sizeof err);
    CHECK_INT(n, 3);
    char want[512];
    snprintf(want, sizeof want, "skipping 7 runs of other programs in %s: last (1), other (1), "
             "tool0 (2), tool1 (2) and 1 of others\nthe newest 3 runs of app in %s are used, 2 "
             "older ones are not (at most 3 runs and 1000 rows are kept)\n", dir, dir);
    CHECK_STR(store_said, want);
    store_free(runs, n);
    for (int i = 0; i < 6; i++) {
        unlink(in[i].path);
        profile_free(&in[i]);
        unlink(more[i].path);
        profile_free(&more[i]);
    }
    CHECK(rmdir(dir) == 0);
    store_order();
    store_heads();
    store_turns();
}

int main(void)
{
    least_squares();
    decay();
    scalaextrap();
    cacheprofile();
    statistics();
    pmnf_basics();
    pmnf_exact_laws();
    pmnf_two_parameters();
    pmnf_noise();
    pmnf_grid_corner();
    pmnf_grid_row();
    pmnf_three_repeated();
    trend();
    extrap();
    store_bound();
    CHECK_DONE();
}
