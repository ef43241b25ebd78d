/* The data of `tardy html --store DIR` and `--extrap FILE`: the runs of a store (or the
 * values of an Extra-P file, a run each) with the values the page plots, the predictions at
 * the targets, and each chosen model's curve with its interval over every parameter the runs
 * vary (the policy predicts along a grid of that parameter, the others kept at the first
 * target's values where runs have them, else at the latest run's, as `tardy predict` does).
 * A "tardy-store-report" document that store.js draws. */
#include "html.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"
#include "predict/predict.h"
#include "tool/profile/profile.h"

/* Points of each model curve. */
#define CURVE_POINTS 24
#define MAX_PARAMS 8

/* A parameter of the runs: "p" (the ranks) or a numeric TARDY_PARAMS value. */
struct param {
    const char *name;
    double lo, hi;
    int distinct; /* how many values: 1, 2, or 3 for three or more */
};

/* Value of parameter name in run r; NAN when the run lacks it or it is not a number (p of
 * an Extra-P file without it). */
static double param_value(const struct profile *r, const char *name)
{
    if (!strcmp(name, "p"))
        return r->ranks_unknown ? NAN : r->ranks;
    for (int i = 0; i < r->nparams; i++) {
        if (strcmp(r->params[i].key, name))
            continue;
        double v;
        return decimal_number(r->params[i].value, &v) ? v : NAN;
    }
    return NAN;
}

/* The numeric parameters all runs have: p first, then those of the first run. */
static int parameters(const struct profile *runs, int n, struct param *out)
{
    int np = 0;
    for (int k = -1; k < runs[0].nparams && np < MAX_PARAMS; k++) {
        struct param q = {k < 0 ? "p" : runs[0].params[k].key, HUGE_VAL, -HUGE_VAL, 1};
        double first = NAN, second = NAN;
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            double v = param_value(&runs[i], q.name);
            ok = !isnan(v);
            if (i == 0) {
                first = v;
            } else if (ok && v != first && q.distinct == 1) {
                second = v;
                q.distinct = 2;
            } else if (ok && v != first && v != second) {
                q.distinct = 3;
            }
            q.lo = fmin(q.lo, v);
            q.hi = fmax(q.hi, v);
        }
        if (ok && !(k >= 0 && !strcmp(q.name, "p")))
            out[np++] = q;
    }
    return np;
}

/* The predictions of the policy at targets, as the entries of a tardy-predictions document
 * (a new reference), and its note in *note; NULL with the problem in err. */
static json_t *predict_at(const struct engine_opts *base, const char *targets,
                          const struct profile *runs, int n, json_t **note, char *err,
                          size_t errlen)
{
    struct engine_opts o = *base;
    o.targets = targets;
    struct profile out;
    profile_init(&out);
    json_t *list = NULL;
    if (engine_predict(&o, runs, n, 0, &out, err, errlen) == 0) {
        struct predictions_source src = {"store", "", "", o.policy, targets, n};
        char *text = predictions_to_json(&out, &src);
        json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
        free(text);
        if (doc) {
            list = json_incref(json_object_get(doc, "predictions"));
            if (note && json_object_get(doc, "note"))
                *note = json_incref(json_object_get(doc, "note"));
            json_decref(doc);
        } else {
            snprintf(err, errlen, "out of memory while reading the predictions back");
        }
    }
    profile_free(&out);
    return list;
}

/* Parameter k's value at point i of its curve: CURVE_POINTS values spaced evenly on a log
 * scale from its smallest run value up to hi. */
static double grid_value(const struct param *q, int i, double hi)
{
    double lo = q->lo > 0 ? q->lo : 1;
    return lo * pow(hi / lo, (double)i / (CURVE_POINTS - 1));
}

/* Append the points of parameter k's curve to targets ("p=2,n=64;p=2.9,n=64;..."): its grid
 * values up to hi, the other parameters at their values on the slice (slice_values(); every
 * value written out, as left to the policy its latest run could be another of the same
 * second, and a policy of one's own need not complete a target at all: docs/lua-api.md's
 * example predicts at the target as given). */
static void grid(const struct param *params, int np, int k, double hi, const double *slice,
                 struct strbuf *targets)
{
    for (int i = 0; i < CURVE_POINTS; i++) {
        sb_printf(targets, "%s%s=%.6g", targets->len ? ";" : "", params[k].name,
                  grid_value(&params[k], i, hi));
        for (int o = 0; o < np; o++)
            if (o != k && !isnan(slice[o]))
                sb_printf(targets, ",%s=%.17g", params[o].name, slice[o]);
    }
}

/* The value of name in a prediction's target ("n=64,p=2.9"); NAN when it has none. */
static double target_value(const char *target, const char *name)
{
    size_t len = strlen(name);
    for (const char *s = target; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
        if (!strncmp(s, name, len) && s[len] == '=')
            return strtod(s + len + 1, NULL);
    return NAN;
}

/* a and b alike in the 10 digits a prediction's target keeps */
static int same_value(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* Is target a point of parameter k's curve: k at one of its values on the curve (at[], as
 * grid() wrote them), every other parameter at its value on the slice or left out? */
static int on_curve(const char *target, const struct param *params, int np, int k,
                    const double *at, const double *slice)
{
    for (int o = 0; o < np; o++) {
        double v = o == k ? NAN : target_value(target, params[o].name);
        if (!isnan(v) && !isnan(slice[o]) && !same_value(v, slice[o]))
            return 0;
    }
    double v = target_value(target, params[k].name);
    for (int i = 0; i < CURVE_POINTS; i++)
        if (same_value(v, at[i]))
            return 1;
    return 0;
}

/* The largest value of q in the targets ("p=64;p=256,n=2048"), or q's largest run value. */
static double target_max(const struct param *q, const char *targets)
{
    double hi = q->hi;
    size_t len = strlen(q->name);
    for (const char *s = targets; (s = strstr(s, q->name)); s += len) {
        int starts = s == targets || s[-1] == ',' || s[-1] == ';';
        if (starts && s[len] == '=')
            hi = fmax(hi, strtod(s + len + 1, NULL));
    }
    return hi;
}

/* The chosen models' curves over each parameter of three values or more (a "curves" array;
 * NULL with the problem in err). Every curve's points go to the policy in one call (each call
 * fits every series anew, and a policy predicts at a target as it would alone), and the
 * predictions then to their curves. */
static json_t *model_curves(const struct engine_opts *opts, const struct profile *runs, int n,
                            const struct param *params, int np, const char *targets,
                            const double *slice, char *err, size_t errlen)
{
    struct strbuf all;
    sb_init(&all);
    for (int k = 0; k < np; k++)
        if (params[k].distinct >= 3) /* two values draw no law: the default policy has none */
            grid(params, np, k, target_max(&params[k], targets), slice, &all);
    json_t *on_grid = all.len ? predict_at(opts, all.data, runs, n, NULL, err, errlen)
                              : json_array();
    sb_free(&all);
    json_t *curves = on_grid ? json_array() : NULL;
    for (int k = 0; k < np && on_grid; k++) {
        if (params[k].distinct < 3)
            continue;
        double hi = target_max(&params[k], targets), at[CURVE_POINTS];
        for (int i = 0; i < CURVE_POINTS; i++) {
            char printed[32]; /* as grid() wrote it */
            snprintf(printed, sizeof printed, "%.6g", grid_value(&params[k], i, hi));
            at[i] = strtod(printed, NULL);
        }
        /* a point two curves share (both at their newest values) was asked twice: once */
        json_t *curve = json_array(), *seen = json_object(), *q;
        struct strbuf key;
        sb_init(&key);
        size_t i;
        json_array_foreach(on_grid, i, q) {
            const char *target = json_string_value(json_object_get(q, "target")),
                       *metric = json_string_value(json_object_get(q, "metric"));
            if (!target || !on_curve(target, params, np, k, at, slice))
                continue;
            key.len = 0;
            sb_printf(&key, "%s;%s", target, metric ? metric : "");
            if (!json_object_get(seen, key.data)) {
                json_object_set_new(seen, key.data, json_true());
                json_array_append(curve, q);
            }
        }
        sb_free(&key);
        json_decref(seen);
        json_array_append_new(curves, json_pack("{s:s,s:o}", "parameter", params[k].name,
                                                "predictions", curve));
    }
    json_decref(on_grid);
    return curves;
}

/* The rows the page plots of run r: "kind:key" as the policies name them (lua/api.c) with
 * the mean and max over ranks of time (and count). */
static json_t *run_values(const struct profile *r)
{
    json_t *values = json_object();
    struct strbuf key;
    sb_init(&key);
    for (size_t i = 0; i < r->rows.n; i++) {
        const struct prof_row *row = &r->rows.rows[i];
        const char *kind = row->kind == ROW_MPI ? "mpi" : row->kind == ROW_INTERVAL ? "interval"
                           : row->kind == ROW_RANK ? "rank" : NULL;
        if (!kind)
            continue;
        key.len = 0;
        sb_printf(&key, "%s:%s%s%s", kind, row->a, row->b ? " -> " : "", row->b ? row->b : "");
        double ranks = r->ranks > 0 ? r->ranks : 1;
        json_object_set_new(values, key.data,
                            json_pack("{s:f,s:f,s:f}", "mean", row->n.time.sum / ranks, "max",
                                      row->n.time.max, "count", row->n.count.sum / ranks));
    }
    sb_free(&key);
    return values;
}

static json_t *run_json(const struct profile *r, const struct param *params, int np)
{
    json_t *p = json_object();
    for (int k = 0; k < np; k++)
        json_object_set_new(p, params[k].name, json_real(param_value(r, params[k].name)));
    const char *file = r->path ? strrchr(r->path, '/') : NULL;
    return json_pack("{s:s,s:s,s:o,s:o}", "file", file ? file + 1 : r->path ? r->path : "",
                     "start_time", r->start_time ? r->start_time : "", "params", p, "values",
                     run_values(r));
}

/* Where the curves cross (slice[k] for params[k]): at the first target's value of a
 * parameter where some run has it, so that the target lies on the curves of the others with
 * those runs beside it (jacobi's runs at 1, 2, 4 ranks asked at p = 2, n = 1280: the curve
 * over n at p = 2 through the target); else at the newest run's value, as a target that
 * leaves a parameter out takes it (a curve at a value no run has would show no run). NAN
 * where neither has one. */
static void slice_values(const struct param *params, int np, const char *targets,
                         const struct profile *runs, int n, const struct profile *newest,
                         double *slice)
{
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(targets, ";"), targets);
    for (int k = 0; k < np; k++) {
        double v = target_value(first, params[k].name);
        slice[k] = param_value(newest, params[k].name);
        for (int i = 0; i < n && !isnan(v); i++)
            if (same_value(param_value(&runs[i], params[k].name), v)) {
                slice[k] = v;
                break;
            }
    }
}

/* Default targets: 4x the largest value of the first parameter the runs vary. */
static void default_targets(const struct param *params, int np, char *out, size_t len)
{
    *out = 0;
    for (int k = 0; k < np; k++)
        if (params[k].distinct > 1) {
            snprintf(out, len, "%s=%.6g", params[k].name, 4 * params[k].hi);
            return;
        }
}

/* The document of runs[0..n) (n > 0) read from where, "store" or "extrap" (the key that
 * names source in it). */
static char *report_json(const struct profile *runs, int n, const char *where,
                         const char *source, const struct engine_opts *opts, char *err,
                         size_t errlen)
{
    struct param params[MAX_PARAMS];
    int np = parameters(runs, n, params);
    char targets[256];
    if (opts->targets)
        snprintf(targets, sizeof targets, "%s", opts->targets);
    else
        default_targets(params, np, targets, sizeof targets);
    json_t *doc = json_object(), *jruns = json_array(), *jparams = json_array(),
           *latest = NULL, *jslice = NULL, *note = NULL;
    /* the latest run, as the default policy takes it; an Extra-P file's runs have no start:
     * its last point (of the runs the policies get, FIT_MAX_POINTS) */
    int kept = n < FIT_MAX_POINTS ? n : FIT_MAX_POINTS;
    const struct profile *newest = runs[0].start_time ? &runs[0] : &runs[kept - 1];
    for (int i = 0; i < n; i++) {
        json_array_append_new(jruns, run_json(&runs[i], params, np));
        if (runs[i].start_time && newest->start_time &&
            strcmp(runs[i].start_time, newest->start_time) > 0)
            newest = &runs[i];
    }
    double slice[MAX_PARAMS];
    slice_values(params, np, targets, runs, n, newest, slice);
    latest = json_object();
    jslice = json_object();
    for (int k = 0; k < np; k++) {
        json_array_append_new(jparams, json_pack("{s:s,s:f,s:f,s:b}", "name", params[k].name,
                                                 "min", params[k].lo, "max", params[k].hi,
                                                 "varied", params[k].distinct > 1));
        json_object_set_new(latest, params[k].name,
                            json_real(param_value(newest, params[k].name)));
        json_object_set_new(jslice, params[k].name, json_real(slice[k]));
    }
    json_t *at = *targets ? predict_at(opts, targets, runs, n, &note, err, errlen) : NULL;
    int failed = *targets && !at;
    json_t *curves = failed ? NULL : model_curves(opts, runs, n, params, np, targets, slice,
                                                  err, errlen);
    failed |= !curves;
    char *text = NULL;
    if (!failed) {
        json_object_set_new(doc, "schema", json_string("tardy-store-report"));
        json_object_set_new(doc, "version", json_integer(1));
        json_object_set_new(doc, where, json_string(source));
        json_object_set_new(doc, "program", json_string(runs[n - 1].program ? runs[n - 1].program : ""));
        json_object_set_new(doc, "policy", json_string(opts->policy ? opts->policy : "default"));
        json_object_set_new(doc, "targets", json_string(targets));
        json_object_set_new(doc, "parameters", json_incref(jparams));
        json_object_set_new(doc, "latest", json_incref(latest));
        json_object_set_new(doc, "slice", json_incref(jslice));
        json_object_set_new(doc, "runs", json_incref(jruns));
        json_object_set_new(doc, "predictions", at ? json_incref(at) : json_array());
        json_object_set_new(doc, "curves", json_incref(curves));
        if (note)
            json_object_set_new(doc, "note", json_incref(note));
        text = json_text(doc, JSON_COMPACT | JSON_REAL_PRECISION(10));
        if (!text)
            snprintf(err, errlen, "out of memory while building the store's report");
    }
    json_decref(doc);
    json_decref(jruns);
    json_decref(jparams);
    json_decref(curves);
    json_decref(latest);
    json_decref(jslice);
    json_decref(at);
    json_decref(note);
    return text;
}

char *store_report_json(const char *dir, const char *program, const struct engine_opts *opts,
                        char *err, size_t errlen)
{
    struct profile *runs = NULL;
    int n = store_runs(dir, program, &runs, err, errlen);
    if (n < 0)
        return NULL;
    char *text = report_json(runs, n, "store", dir, opts, err, errlen);
    store_free(runs, n);
    return text;
}

char *extrap_report_json(const char *path, const struct engine_opts *opts, char *err,
                         size_t errlen)
{
    struct profile *runs = NULL;
    int n = extrap_read(path, &runs, err, errlen);
    if (n < 0)
        return NULL;
    char *text = report_json(runs, n, "extrap", path, opts, err, errlen);
    store_free(runs, n);
    return text;
}
