/* The parts of the PMNF search (pmnf.c) that live in files of their own: the scores of a
 * hypothesis on a line (pmnf_scoring.c) and the candidate terms of one parameter
 * (pmnf_terms.c). Private to predict/. */
#ifndef TARDY_PMNF_PARTS_H
#define TARDY_PMNF_PARTS_H

#include <math.h>

#include "predict.h"

/* Forward chaining from the largest value of a parameter and from the second largest (each
 * predicted from the values below it): the error of one held-out scale is one noisy number,
 * and a form that happens to meet it (x^0.75·log2 x for a line through five scales with 3%
 * noise) won over the law; with two origins, fresh laws of p from 1..16 predicted at 64 erred
 * 2.2% at the median where they erred 2.8% (docs/design.md 3.4). */
#define PMNF_FORWARD 2

/* ---- pmnf_scoring.c ---- */
/* w = 1/y² (relative least squares), all ones unless every y is positive. */
void pmnf_relative_weights(const double *y, int n, double *w);
/* A line's weighted points: weight sum, weighted means, centred sums of squares, products. */
struct pmnf_moments {
    double sw, tm, ym, sxx, sxy;
};
struct pmnf_moments pmnf_line_moments(const double *t, const double *y, const double *w, int n);
int pmnf_line_defined(const struct pmnf_moments *s);
/* Leave-one-out predictions of the line c0 + c1 t (-1 when t does not determine it) and of
 * the constant model. */
int pmnf_loo_line(const double *t, const double *y, const double *w, int n, double *pred);
void pmnf_loo_mean(const double *y, const double *w, int n, double *pred);
/* A mean (of e, or of pred's SMAPE terms against y) and the squared standard error of it. */
double pmnf_mean_se2(const double *e, int n, double *se2);
double pmnf_smape_se2(const double *y, const double *pred, int n, double *se2);
/* The k-th largest distinct value of x[i * stride], how many lie below it in *below. */
double pmnf_largest_value(const double *x, int stride, int n, int k, int *below);
/* Forward chaining's origins along one parameter (at most `most`) into top; how many. */
int pmnf_origins(const double *x, int stride, int n, int most, double *top);

/* ---- pmnf_terms.c ---- */
/* One parameter's term x^e · log2(x)^l. */
struct pmnf_term {
    double e;
    int l;
};
/* inline: evaluated for every point of every hypothesis */
static inline double pmnf_term_value(struct pmnf_term t, double x)
{
    double v = pow(x, t.e);
    for (int i = 0; i < t.l; i++)
        v *= log2(x);
    return v;
}
/* The log's power plus the exponent's denominator; 0 for the constant. */
int pmnf_complexity(struct pmnf_term t);
/* Parameter d's best terms on the points (x n × np, y), at most max, best first. */
int pmnf_best_terms(const double *x, int np, int d, const double *y, int n,
                    const struct pmnf_options *opt, struct pmnf_term *out, int max);

#endif
