/* The prediction engine in plain C (no MPI, no Lua): least-squares fitting and model
 * selection, the run store, Extra-P's inputs. */
#ifndef TARDY_PREDICT_H
#define TARDY_PREDICT_H

#include <stdio.h>

#include "tool/profile/profile.h"

/* ---- lsq.c, lm.c, decay.c, stats.c, chaining.c, scalaextrap.c,
 * cacheprofile.c, pmnf.c ----
 * The fitting engine in plain C (no MPI, no Lua): least squares, Levenberg–Marquardt,
 * statistics, leave-one-out cross-validation and the PMNF hypothesis search (docs/design.md 3.4).
 * Reentrant; every function returns 0 on success and a negative FIT_E* code otherwise (never
 * NaN silently). Matrices are row-major, n rows (points) × k columns. */
/* Points a fit takes at most (one per run of a series). */
#define FIT_MAX_POINTS 512

enum {
    FIT_OK = 0,
    FIT_EINPUT = -1,  /* fewer points than parameters, NaN/inf, bad sizes */
    FIT_ESINGULAR = -2, /* the columns do not determine the coefficients */
    FIT_ENOMEM = -3,
    FIT_ENOCONV = -4, /* Levenberg–Marquardt did not converge */
    FIT_ENOLAPACK = -5, /* LAPACK cannot be loaded (lapack_load says why) */
};

const char *fit_strerror(int code);

/* Load LAPACK (LAPACK_SONAME, set at build time; lapack_api.c) and resolve its routines, once
 * for the process (thread-safe; a fit does it too). Returns 0, or -1 with the reason, naming
 * the library, in why. */
int lapack_load(char *why, size_t len);

/* Least squares X b ≈ y by QR (LAPACK dgeqr2), or by SVD (dgesvd) where the columns may be
 * nearly dependent. w (may be NULL) weights each point. On success coef[k] and, unless rss
 * is NULL, *rss (residual sum of squares) are set; FIT_ESINGULAR when X has not full rank (a
 * singular value below 1e-12 of the largest). */
int fit_lsq(const double *X, int n, int k, const double *y, const double *w, double *coef,
            double *rss);
/* The same and the leverages h[n] (fit_leverage) from the same decomposition. */
int fit_lsq_leverage(const double *X, int n, int k, const double *y, const double *w,
                     double *coef, double *rss, double *h);

/* Leverages h[n] of the points in the (weighted) least squares fit with design X (n × k):
 * the diagonal of the hat matrix. A left-out point's residual is e_i / (1 - h_i), exactly for
 * linear models and to first order (X = the Jacobian at the optimum) for nonlinear ones. */
int fit_leverage(const double *X, int n, int k, const double *w, double *h);

/* The rank of X (n × k, row-major) with its columns scaled to unit length: the singular values
 * above 1e-8 of the largest; -1 on bad sizes or values that are not finite. */
int fit_rank(const double *X, int n, int k);

/* Statistics of predictions p against actual values a (n points). */
double fit_rss(const double *a, const double *p, int n);
double fit_smape(const double *a, const double *p, int n);  /* percent, 0..200 */
/* The per-point terms of SMAPE (percent); a difference below 1e-9 of the largest |a| is 0. */
void fit_smape_terms(const double *a, const double *p, int n, double *terms);
int fit_mape(const double *a, const double *p, int n, double *out); /* FIT_EINPUT if a has 0 */
double fit_r2(const double *a, const double *p, int n);
/* Adjusted R² for k model parameters; NAN when n <= k + 1 (undefined). */
double fit_adj_r2(const double *a, const double *p, int n, int k);

/* Nonlinear least squares: minimise sum r_i(params)^2. resid fills r[n] for params[k] and
 * returns 0 (non-zero aborts). lower/upper (may be NULL) bound each parameter (use ±HUGE_VAL).
 * params holds the start on entry and the result on return. */
typedef int (*fit_resid_fn)(const double *params, double *r, void *ctx);
int fit_lm(fit_resid_fn resid, void *ctx, int n, int k, double *params, const double *lower,
           const double *upper, int max_iter, double *rss);
/* The Jacobian (n × k, row-major) of resid at params, by forward differences. */
int fit_jacobian(fit_resid_fn resid, void *ctx, int n, int k, const double *params, double *J);

/* The exponential decay y ≈ a·e^(−r·x) + c with r > 0 and c ≥ 0 by least squares (decay.c):
 * the rate by a one-dimensional search, a and c in closed form at each rate. 3 <= n <=
 * FIT_MAX_POINTS; FIT_ESINGULAR when x does not vary. */
int fit_decay(const double *x, const double *y, int n, double *a, double *r, double *c,
              double *rss);

/* Least squares y = c0 + c1·x in closed form (lsq.c), the mean of x into *xm and its sum of
 * squared deviations into *sxx (a point's leverage is 1/n + (x_i − xm)² / sxx); FIT_ESINGULAR,
 * c0 and c1 unset, when x does not vary. */
int fit_line(const double *x, const double *y, int n, double *c0, double *c1, double *xm,
             double *sxx);

/* Forward chaining's split (chaining.c): the points below the largest x into bx, by (*m of
 * them), the largest x into *top; returns how many distinct values lie below it. */
int fit_below_largest(const double *x, const double *y, int n, double *bx, double *by, int *m,
                      double *top);

/* ScalaExtrap's four models of t against the process count p (scalaextrap.c, docs/design.md
 * 3.2): the form with the smallest of the scores d1..d4, its coefficients (the value at p is
 * scalaextrap_eval(form, u, v, p)), the SMAPE on the runs, the leave-one-out SMAPE of the
 * form (NAN under 4 runs) and its forward-chaining SMAPE (the form chosen on the runs below
 * the largest p, at the runs there; NAN under 3 smaller p), in percent. 3 <= n <=
 * FIT_MAX_POINTS, else FIT_EINPUT, as when no score is a number. */
enum { SCALAEXTRAP_CONSTANT, SCALAEXTRAP_LINEAR, SCALAEXTRAP_INVERSE,
       SCALAEXTRAP_INVERSE_CONSTANT };
extern const char *const scalaextrap_forms[]; /* their names, by form */
struct scalaextrap_fit {
    int form;
    double u, v, score;
    double fit_smape, loo_smape, extrap_smape;
};
int fit_scalaextrap(const double *p, const double *t, int n, struct scalaextrap_fit *out);
/* constant u, linear u·p + v, inverse u / p, inverse + constant u / p + v */
double scalaextrap_eval(int form, double u, double v, double p);

/* The cache-profile models of y against one parameter x (cacheprofile.c, docs/design.md
 * 3.3): against the process count linear, inverse, log and exponential, against a problem size
 * (size) linear with a > 0; the form with the smallest MAPE on the runs, its value at x
 * cacheprofile_eval(&out->model, x). Unless refit (the model alone): the SMAPE on the runs,
 * the leave-one-out SMAPE from the fit's leverages (e_i / (1 − h_i): exact for the linear
 * forms, to first order for the exponential; NAN without them) and the forward-chaining SMAPE
 * (the form fitted below the largest x, at the runs there; NAN under 3 smaller values, 4 for
 * the exponential), in percent. FIT_EINPUT unless 3 <= n <= FIT_MAX_POINTS and no y is 0,
 * FIT_ESINGULAR when no form fits. */
enum { CACHEPROFILE_LINEAR, CACHEPROFILE_INVERSE, CACHEPROFILE_LOG, CACHEPROFILE_EXPONENTIAL };
extern const char *const cacheprofile_forms[]; /* their names, by form */
struct cacheprofile_form {
    int form;
    double coef[4]; /* linear a·x + b: a, b; inverse a + b/x: a, b; log k·log(x) + b: k, b;
                       exponential a·e^(−r·(x − lo)) + c: a, r, c, lo */
};
struct cacheprofile_fit {
    struct cacheprofile_form model;
    double fit_smape, loo_smape, extrap_smape;
};
int fit_cacheprofile(const double *x, const double *y, int n, int size, int refit,
                     struct cacheprofile_fit *out);
double cacheprofile_eval(const struct cacheprofile_form *f, double x);

/* PMNF: f(x) = c0 + sum over terms t of c_t · prod over the parameters d in term t of
 * x_d^e_d · log2(x_d)^l_d: one term per parameter (e_d, l_d), combined additively
 * (c0 + c1·f + c2·g), multiplicatively (c0 + c1·f·g) or mixed (c0 + c1·f + c2·f·g, ...),
 * for one to three parameters (docs/design.md 3.4); and for a parameter whose term falls
 * (strong scaling: work / p), one more product of a second, growing term of it (the
 * overhead: c0 + c1/p + c2·log2 p), mask bit PMNF_SECOND. */
#define PMNF_MAX_PARAMS 3
#define PMNF_MAX_TERMS 4
#define PMNF_SECOND 0x80
struct pmnf_model {
    int nparams;                      /* 1 to 3 */
    int nterms;                       /* products after c0; 0 is the constant model */
    unsigned char mask[PMNF_MAX_TERMS]; /* the parameters of each product (bit d), or
                                           PMNF_SECOND: x_d2^e2 · log2(x_d2)^l2 */
    double e[PMNF_MAX_PARAMS];        /* exponent per parameter */
    int l[PMNF_MAX_PARAMS];           /* power of log2 per parameter */
    int d2;                           /* the parameter of the second term, its exponent */
    double e2;                        /* and power of log2 */
    int l2;
    double c[PMNF_MAX_TERMS + 1];
    double fit_smape;                 /* on the fitted points, percent */
    double loo_smape;                 /* leave-one-out cross-validated, percent */
    double extrap_smape;              /* the largest scale of each parameter predicted from the
                                         smaller ones (forward chaining), percent; NAN when a
                                         parameter has fewer than 4 values */
    double score;                     /* what selection minimises: the mean of the two */
    char formula[320];
};

struct pmnf_options {
    int negative;             /* also try negative exponents (strong scaling: c + k/p) */
    const char *const *names; /* parameter names for the formula (default x, y, z) */
    int repeated;             /* every value the median of repetitions (PMNF_REPEATED or more):
                                 three values of a parameter then admit more terms */
};
/* How many repetitions make a median's noise low enough for three values of a parameter to
 * tell the terms of complexity 2 apart (log2 x, x^(1/2), x·log2 x): docs/design.md 3.4. */
#define PMNF_REPEATED 2

/* Search the hypotheses for n points x (n × nparams, row-major, all > 0) and values y
 * (repetitions are points of their own); select by the mean of the leave-one-out SMAPE and the
 * forward-chaining SMAPE at the largest scales (the simplest within one standard error of the
 * best). Needs 3 <= n <= FIT_MAX_POINTS (and distinct x). */
int fit_pmnf(const double *x, int nparams, const double *y, int n,
             const struct pmnf_options *opt, struct pmnf_model *out);
/* The same search; out[0] is the chosen model, out[1..] the other hypotheses that score
 * nearly as well (at most 1.25 × the chosen score + 0.5 points), best first: their spread at a
 * target is part of a prediction's uncertainty, their formulas are left empty (a text each
 * was 1.5% of a prediction's instructions). Returns how many (>= 1) or a FIT_E* code. */
int fit_pmnf_ranked(const double *x, int nparams, const double *y, int n,
                    const struct pmnf_options *opt, struct pmnf_model *out, int max);
double pmnf_eval(const struct pmnf_model *m, const double *x);
/* Whether m's value depends on parameter d. */
int pmnf_uses(const struct pmnf_model *m, int d);
/* A formula as a person writes it (in place): every " + -b" becomes " - b", a last " + 0"
 * and a first "0 + " go, and so does a factor "1 * ". */
void formula_tidy(char *formula);

/* ---- trend.c ----
 * Does a series change with its parameters beyond the noise between its repetitions? n values
 * y with their parameters x (n × nparams, named names[d]) and scale[i] (0..nscales-1, the
 * values of one scale being its repetitions, at least two at every scale): Kruskal–Wallis
 * over the scales and over each parameter's values, Spearman's rho of each parameter with y,
 * each at 5%. out->trend when any of them finds a change (out->what names the first),
 * else out->what names the test over the scales. */
#define FIT_MAX_VALUES 4096
struct trend_result {
    int trend;
    double h, h_crit; /* Kruskal–Wallis over the scales and its 5% critical value */
    char what[160];
};
int fit_trend(const double *x, int nparams, const char *const *names, const int *scale,
              int nscales, const double *y, int n, struct trend_result *out);

/* ---- store.c ----
 * The run store: a directory of JSON profiles, one per run, written atomically by
 * profile_write. Runs of one program are found by program name and call-site set. */
/* Called with a line for every file that cannot be read, one for all runs of other programs
 * and one for all runs of like's executable with other call sites. */
typedef void (*store_warn_fn)(const char *message, void *arg);

/* Load the runs in dir that belong to the program of like (its executable's base name and at
 * least half of the MPI call sites in common; by name alone when like has no call sites, as
 * at MPI_Init); like == NULL loads the runs of the program with the most runs in dir (among
 * the runs of the executable whose base name is program, when not NULL). Of
 * those, the newest (by start time) within bound (NULL: at most STORE_MAX_RUNS runs and
 * STORE_MAX_ROWS rows in all, about 140 MB; a warning says how many others are left out),
 * the newest run at every scale first, then the second newest of each, and so on, so that a
 * store growing run after run costs MPI_Finalize no more memory or time and keeps its scales.
 * With like, each file's head names its program, start time and scale (store_head.h), and
 * only the runs of like's executable kept are read in full, up to the first past the bound;
 * without, every run is read once and only its program and MPI call sites held until the
 * program is known, then the runs kept of it are read again. Runs come oldest first. Returns the
 * number of runs (array in *runs, caller frees with store_free), or -1 with a message in err
 * when dir cannot be read. */
#define STORE_MAX_RUNS FIT_MAX_POINTS
#define STORE_MAX_ROWS 50000L
struct store_bound {
    int runs;
    long rows;
};
int store_load(const char *dir, const struct profile *like, const char *program,
               const struct store_bound *bound, struct profile **runs, store_warn_fn warn,
               void *arg, char *err, size_t errlen);
void store_free(struct profile *runs, int n);
/* Whether a run parameter's value is a number (as tardy.runs() reads one), not text
 * (store_head.c). */
int store_param_is_number(const char *value);

/* ---- extrap.c, extrap_text.c, extrap_json.c ----
 * Extra-P's inputs: the store's data written in its text format (PARAMETER / POINTS / REGION /
 * METRIC / DATA) to be modelled by Extra-P, and Extra-P's inputs read by tardy. */
/* Write the metrics of runs (one program) to out: parameters p and every user parameter
 * all runs have; one point per distinct parameter tuple (runs at the same point are
 * repetitions); regions are call sites ("MPI_Send@main x.c:88;..."), intervals ("SITE => SITE"),
 * per-rank metrics ("ranks/compute"), MPI_T performance variables ("pvar/NAME => CLASS") and
 * events ("event/EVENT => SITE"); metrics time_mean, time_max, count_mean, sent_mean,
 * recv_mean, memory_live_max, memory_live_mean (means over ranks of per-rank totals, or their
 * maximum; intervals the first three; per-rank metrics mean and max; pvars and events
 * STAT_mean and STAT_max of every statistic they have), and counter_mean/EVENT,
 * counter_max/EVENT for the counters (TARDY_PAPI) of any row. A row some runs lack has first
 * the metric present (1 in the runs with the row, 0 in the others, whose other metrics are 0).
 * Returns the number of regions written. */
int extrap_write(const struct profile *runs, int nruns, FILE *out);

/* Read an Extra-P input file as runs: its text format, or (a file that starts with '{') its
 * JSON input, the legacy JSON with ids, JSON Lines or Talpas's lines. One run per value of a
 * point (p taken from a parameter named p, else 1; the other parameters become run
 * parameters): the first value at every point is a run, the second another (repetitions, as
 * the runs of a store; a policy takes their median), so runs come repetition by repetition.
 * Regions and metrics written by extrap_write go back to their rows, and a run gets no row
 * where present is 0 at its point (so predictions from an export equal those from the
 * store); any other pair becomes the per-rank metric "region/metric". Returns the number of
 * runs (array in *runs, free with store_free), or -1 with "file:line: problem" (or "file:
 * problem") in err. */
int extrap_read(const char *path, struct profile **runs, char *err, size_t errlen);

#endif
