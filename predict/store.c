/* Reading the run store. */
#include "predict.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_head.h"
#include "tool/profile/profile.h"

static const char *base_name(const char *path)
{
    const char *b = strrchr(path ? path : "", '/');
    return b ? b + 1 : path ? path : "";
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Share of a's MPI call sites that b has too; -1 when a has none. */
static double site_overlap(const struct profile *a, const struct profile *b)
{
    size_t total = 0, common = 0;
    for (size_t i = 0; i < a->rows.n; i++) {
        const struct prof_row *r = &a->rows.rows[i];
        if (r->kind != ROW_MPI)
            continue;
        total++;
        common += rowset_find(&b->rows, ROW_MPI, r->a, NULL) != NULL;
    }
    return total ? (double)common / (double)total : -1;
}

/* Is b a run of the program of ref? A ref without call sites (a job at MPI_Init) is matched
 * by the executable's name alone. */
static int same_program(const struct profile *ref, const struct profile *b)
{
    if (strcmp(base_name(ref->program), base_name(b->program)))
        return 0;
    double there = site_overlap(ref, b);
    return there < 0 || (there >= 0.5 && site_overlap(b, ref) >= 0.5);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sorted names of the .json files in dir; NULL when dir cannot be read. */
static char **json_files(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    int cap = 0;
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !has_suffix(e->d_name, ".json"))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **bigger = realloc(names, (size_t)cap * sizeof *names);
            if (!bigger)
                break;
            names = bigger;
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (!names)
        names = calloc(1, sizeof *names);
    qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

/* Is a run started at sa (read as the ia-th) older than one started at sb (the ib-th)? By
 * start time, then the order read; a run without a start time is oldest. */
static int older(const char *sa, int ia, const char *sb, int ib)
{
    int c = strcmp(sa ? sa : "", sb ? sb : "");
    return c ? c < 0 : ia < ib;
}

/* The runs kept, read in turns (pick_order) up to the first that would take them over
 * bound->runs runs or bound->rows rows in all (one run is always kept); from it on every later
 * run is left out (cut), so that the same store gives the same runs however its files are
 * named. */
struct kept {
    struct profile *runs;
    int n, dropped, cut;
    int scales, scales_kept; /* distinct scales among the candidates, and the runs kept */
    long rows;
};

/* Would a run of rows rows beside the kept ones stay within bound? */
static int fits(const struct kept *k, long rows, const struct store_bound *bound)
{
    return k->n == 0 || (k->n < bound->runs && k->rows + rows <= bound->rows);
}

static void leave_out(struct kept *k)
{
    k->cut = 1;
    k->dropped++;
}

static void keep(struct kept *k, struct profile *r)
{
    k->runs[k->n++] = *r;
    k->rows += (long)r->rows.n;
}

/* The runs skipped as another program's, said in two lines at the end rather than a line
 * each (a store shared by several programs holds hundreds): how many of other executables,
 * the first few of those by name, and how many of ref's executable with other call sites. */
#define SKIP_NAMES 4
struct skipped {
    int others, sites;
    int nnames, count[SKIP_NAMES];
    char *name[SKIP_NAMES];
    char *site_path; /* one run with other call sites */
};

static void foreign(struct skipped *sk, const char *ref, const char *path, const char *program)
{
    const char *name = base_name(program);
    if (!strcmp(name, base_name(ref))) {
        if (!sk->sites++)
            sk->site_path = strdup(path);
        return;
    }
    sk->others++;
    for (int i = 0; i < sk->nnames; i++)
        if (!strcmp(sk->name[i], name)) {
            sk->count[i]++;
            return;
        }
    if (sk->nnames < SKIP_NAMES && (sk->name[sk->nnames] = strdup(name)))
        sk->count[sk->nnames++] = 1;
}

static void say_skipped(struct skipped *sk, const char *ref, const char *dir, store_warn_fn warn,
                        void *arg)
{
    char line[4600];
    if (sk->others) {
        int at = snprintf(line, sizeof line, "skipping %d run%s of other programs in %s:",
                          sk->others, sk->others > 1 ? "s" : "", dir), listed = 0;
        for (int i = 0; i < sk->nnames && at < (int)sizeof line; i++) {
            at += snprintf(line + at, sizeof line - (size_t)at, "%s %s (%d)", i ? "," : "",
                           sk->name[i], sk->count[i]);
            listed += sk->count[i];
        }
        if (sk->others > listed && at < (int)sizeof line)
            snprintf(line + at, sizeof line - (size_t)at, " and %d of others",
                     sk->others - listed);
        warn(line, arg);
    }
    if (sk->sites) {
        snprintf(line, sizeof line, "skipping %d run%s of %s with other MPI call sites (changed "
                 "code or TARDY_DEPTH), such as %s", sk->sites, sk->sites > 1 ? "s" : "",
                 base_name(ref), sk->site_path ? sk->site_path : "?");
        warn(line, arg);
    }
    for (int i = 0; i < sk->nnames; i++)
        free(sk->name[i]);
    free(sk->site_path);
}

/* run reduced to what choosing the program and the runs of one parameter set takes: its
 * program, path, start time, parameters (sorted) and MPI call sites (a few KB where the run
 * may hold MBs); 0, or -1 when memory is short */
static int skeleton(const struct profile *run, struct profile *sk)
{
    profile_init(sk);
    sk->program = run->program ? strdup(run->program) : NULL;
    sk->path = run->path ? strdup(run->path) : NULL;
    sk->start_time = run->start_time ? strdup(run->start_time) : NULL;
    int nparams = store_params_copy(run->params, run->nparams, &sk->params);
    sk->nparams = nparams < 0 ? 0 : nparams;
    int ok = (!run->program || sk->program) && (!run->path || sk->path) &&
             (!run->start_time || sk->start_time) && nparams >= 0;
    for (size_t i = 0; ok && i < run->rows.n; i++)
        if (run->rows.rows[i].kind == ROW_MPI)
            ok = rowset_get(&sk->rows, ROW_MPI, run->rows.rows[i].a, NULL) != NULL;
    return ok ? 0 : -1;
}

/* Read the run at path into r; on failure warn and return -1. */
static int read_run(const char *path, struct profile *r, store_warn_fn warn, void *arg)
{
    char msg[4200], line[4300];
    profile_init(r);
    if (profile_read(r, path, msg, sizeof msg) == 0)
        return 0;
    snprintf(line, sizeof line, "skipping %s", msg);
    warn(line, arg);
    profile_free(r);
    return -1;
}

/* Is every parameter of the run at path a number or text? profile_read and store_head read
 * any other value (a list, an object, null, a boolean) as "": no scale a law can place (it
 * made a zero-width interval, the parameter dropped from the model). Else a warning names
 * the file. */
static int params_ok(const char *path, const struct prof_param *params, int n,
                     store_warn_fn warn, void *arg)
{
    char line[4400];
    for (int i = 0; i < n; i++)
        if (!*params[i].value) {
            snprintf(line, sizeof line, "skipping %s: run.params.%s is empty or neither a "
                     "number nor text", path, params[i].key);
            warn(line, arg);
            return 0;
        }
    return 1;
}

/* A run that may be kept: its file, start time, scale (store_scale), parameters (sorted),
 * order read, rows (-1: not known before it is read in full) and turn (pick_order). */
struct cand {
    char *path, *start, *scale;
    struct prof_param *params;
    int nparams;
    int order, turn;
    long rows;
};

static int newest_first(const struct cand *a, const struct cand *b)
{
    return older(a->start, a->order, b->start, b->order) ? 1 : -1;
}

static int scale_cmp(const struct cand *a, const struct cand *b)
{
    return strcmp(a->scale ? a->scale : "", b->scale ? b->scale : "");
}

static int by_scale_newest_first(const void *x, const void *y)
{
    const struct cand *a = x, *b = y;
    return scale_cmp(a, b) ? scale_cmp(a, b) : newest_first(a, b);
}

static int by_turn_newest_first(const void *x, const void *y)
{
    const struct cand *a = x, *b = y;
    return a->turn != b->turn ? (a->turn > b->turn) - (a->turn < b->turn) : newest_first(a, b);
}

/* The order the candidates are kept in when not all fit: the newest run of every scale (ranks
 * and parameters), newest first, then the second newest of each, and so on. A study run
 * scale by scale with thousands of call paths fills the bound with a few runs; newest first
 * they were repetitions of its largest scales, and the smaller ones that a law is fitted on
 * were left out (18 runs of 5,000 rows, 6 scales: the newest 9 were 3 scales). Returns the
 * number of distinct scales. */
static int pick_order(struct cand *c, int n)
{
    int scales = 0;
    qsort(c, (size_t)n, sizeof *c, by_scale_newest_first);
    for (int i = 0; i < n; i++) {
        int same = i > 0 && !scale_cmp(&c[i], &c[i - 1]);
        c[i].turn = same ? c[i - 1].turn + 1 : 0;
        scales += !same;
    }
    qsort(c, (size_t)n, sizeof *c, by_turn_newest_first);
    return scales;
}

/* ---- the runs of one parameter set ----------------------------------------------------- */

/* The order of parameter sets (sorted by name): by names, then kind (numbers first), then the
 * text of a text value; 0 for the same set (every number alike: a scale, not another set). */
static int params_cmp(const struct prof_param *a, int na, const struct prof_param *b, int nb)
{
    for (int i = 0; i < na && i < nb; i++) {
        int c = strcmp(a[i].key, b[i].key);
        int an = store_param_is_number(a[i].value), bn = store_param_is_number(b[i].value);
        if (!c && an != bn)
            c = an ? -1 : 1;
        else if (!c && !an)
            c = strcmp(a[i].value, b[i].value);
        if (c)
            return c;
    }
    return (na > nb) - (na < nb);
}

static int by_params_newest_first(const void *x, const void *y)
{
    const struct cand *a = *(const struct cand *const *)x, *b = *(const struct cand *const *)y;
    int c = params_cmp(a->params, a->nparams, b->params, b->nparams);
    return c ? c : newest_first(a, b);
}

/* The candidate whose parameter set most of c[0..n) share (of sets as common, the one of the
 * newest run); NULL when memory is short. */
static const struct cand *most_shared(const struct cand *c, int n)
{
    const struct cand **by = malloc(((size_t)n + 1) * sizeof *by), *best = NULL;
    for (int i = 0; by && i < n; i++)
        by[i] = &c[i];
    if (by)
        qsort(by, (size_t)n, sizeof *by, by_params_newest_first);
    for (int i = 0, most = 0, j; by && i < n; i = j) { /* by[i]: the newest of its set */
        for (j = i + 1; j < n && !params_cmp(by[i]->params, by[i]->nparams, by[j]->params,
                                       by[j]->nparams); j++)
            ;
        if (j - i > most || (j - i == most && newest_first(by[i], best) < 0)) {
            most = j - i;
            best = by[i];
        }
    }
    free(by);
    return best;
}

/* How the parameter set b differs from the set a (both sorted by name), which who holds
 * (plural: "the 6 others", else "this run"), as a phrase into why: the first difference by
 * name. */
static void differs(const struct prof_param *a, int na, const struct prof_param *b, int nb,
                    const char *who, int plural, char *why, size_t len)
{
    const char *has = plural ? "have" : "has", *lacks = plural ? "lack" : "lacks";
    for (int i = 0, j = 0; i < na || j < nb; i++, j++) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].key, b[j].key);
        int an = c ? 0 : store_param_is_number(a[i].value), bn = c ? 0 : store_param_is_number(b[j].value);
        if (c < 0)
            snprintf(why, len, "without the parameter %s, which %s %s (run without "
                     "TARDY_PARAMS=%s=...)", a[i].key, who, has, a[i].key);
        else if (c > 0)
            snprintf(why, len, "with the parameter %s, which %s %s", b[j].key, who, lacks);
        else if (an && !bn)
            snprintf(why, len, "with text for %s (%s=%s) where %s %s a number", b[j].key,
                     b[j].key, b[j].value, who, has);
        else if (!an && bn)
            snprintf(why, len, "with a number for %s (%s=%s) where %s %s text (%s=%s)",
                     b[j].key, b[j].key, b[j].value, who, has, a[i].key, a[i].value);
        else if (!an && strcmp(a[i].value, b[j].value))
            snprintf(why, len, "with %s=%s where %s %s %s=%s", b[j].key, b[j].value, who, has,
                     a[i].key, a[i].value);
        else
            continue;
        return;
    }
}

/* The runs left out for another parameter set, said a line per reason (SKIP_NAMES of them,
 * then one line for the rest): how many, why and one file. */
struct apart {
    int nwhy, count[SKIP_NAMES], rest;
    char *why[SKIP_NAMES], *path[SKIP_NAMES];
};

static void apart_add(struct apart *ap, const char *why, const char *path)
{
    for (int i = 0; i < ap->nwhy; i++)
        if (!strcmp(ap->why[i], why)) {
            ap->count[i]++;
            return;
        }
    if (ap->nwhy < SKIP_NAMES && (ap->why[ap->nwhy] = strdup(why))) {
        ap->path[ap->nwhy] = strdup(path);
        ap->count[ap->nwhy++] = 1;
    } else {
        ap->rest++;
    }
}

static void say_apart(struct apart *ap, const char *program, const char *dir,
                      store_warn_fn warn, void *arg)
{
    char line[6400];
    for (int i = 0; i < ap->nwhy; i++) {
        snprintf(line, sizeof line, "leaving out %d run%s of %s in %s: %s, such as %s",
                 ap->count[i], ap->count[i] > 1 ? "s" : "", base_name(program), dir,
                 ap->why[i], ap->path[i] ? ap->path[i] : "?");
        warn(line, arg);
        free(ap->why[i]);
        free(ap->path[i]);
    }
    if (ap->rest) {
        snprintf(line, sizeof line, "leaving out %d more run%s of %s in %s of other parameter "
                 "sets", ap->rest, ap->rest > 1 ? "s" : "", base_name(program), dir);
        warn(line, arg);
    }
}

/* Of the candidates c[0..n), those of one parameter set (its names, whether each is a number,
 * the text of a text value) are kept, in their order: like's, else the set most of them share.
 * A run with TARDY_PARAMS forgotten, another key or a text value among numbers had the default
 * policy compare nil or text with numbers, and runs at two values of a text parameter are two
 * configurations, not one series (pooled: copies of jacobi's runs at mode=fast and at a 10x
 * slower mode=slow gave fits 107% off their runs).
 * The others are freed and said in warnings. Returns how many are kept. */
static int one_parameter_set(struct cand *c, int n, const struct profile *like,
                             const char *program, const char *dir, store_warn_fn warn,
                             void *arg)
{
    struct prof_param *own = NULL;
    int nown = like ? store_params_copy(like->params, like->nparams, &own) : 0;
    const struct cand *ref = like ? NULL : most_shared(c, n);
    if (nown < 0 || (!like && !ref))
        return n; /* no runs, or memory short: all kept (the policy checks its points) */
    const struct prof_param *set = like ? own : ref->params;
    int nset = like ? nown : ref->nparams, same = 0, kept = 0;
    for (int i = 0; i < n; i++)
        same += !params_cmp(set, nset, c[i].params, c[i].nparams);
    char who[32], why[4096];
    if (like || same == 1)
        snprintf(who, sizeof who, "%s", like ? "this run" : "the other run");
    else
        snprintf(who, sizeof who, "the %d others", same);
    struct apart ap = {0};
    for (int i = 0; i < n; i++) {
        if (!params_cmp(set, nset, c[i].params, c[i].nparams)) {
            c[kept++] = c[i];
            continue;
        }
        differs(set, nset, c[i].params, c[i].nparams, who, !like && same > 1, why, sizeof why);
        apart_add(&ap, why, c[i].path);
        free(c[i].path);
        free(c[i].start);
        free(c[i].scale);
        store_params_free(c[i].params, c[i].nparams);
    }
    say_apart(&ap, program, dir, warn, arg);
    store_params_free(own, nown);
    return kept;
}

/* Read the candidates in turns into k while within bound: those of ref's program are kept up
 * to the first that would pass the bound, no later one is read (the same runs however the
 * files are named or ordered). */
static void read_in_turns(struct kept *k, struct cand *c, int n, const struct profile *ref,
                          const struct store_bound *bound, struct skipped *sk,
                          store_warn_fn warn, void *arg)
{
    k->scales = pick_order(c, n);
    for (int i = 0; i < n; i++) {
        struct profile r;
        if (k->cut || (c[i].rows >= 0 && !fits(k, c[i].rows, bound))) {
            leave_out(k);
            continue;
        }
        if (read_run(c[i].path, &r, warn, arg) < 0)
            continue;
        if (!same_program(ref, &r)) {
            foreign(sk, ref->program, r.path, r.program);
            profile_free(&r);
        } else if (!fits(k, (long)r.rows.n, bound)) {
            leave_out(k);
            profile_free(&r);
        } else {
            keep(k, &r);
            k->scales_kept += c[i].turn == 0;
        }
    }
}

/* Is the run at path one of the executable named like program? Its head says, else the file
 * read in full (unreadable: named in a warning, 0). Runs of other programs are counted in sk;
 * *head (when head is not NULL) gets the run's head, the caller frees it. */
static int named(const char *path, const char *program, struct store_head *head,
                 struct skipped *sk, store_warn_fn warn, void *arg)
{
    struct store_head h;
    if (!store_head(path, &h)) {
        struct profile r;
        if (read_run(path, &r, warn, arg) < 0)
            return 0;
        h.program = r.program ? strdup(r.program) : NULL;
        h.start = r.start_time ? strdup(r.start_time) : NULL;
        h.scale = store_scale(r.ranks, r.params, r.nparams);
        int nparams = store_params_copy(r.params, r.nparams, &h.params);
        h.nparams = nparams < 0 ? 0 : nparams; /* memory short: as a run without them */
        profile_free(&r);
    }
    int same = !strcmp(base_name(h.program), base_name(program));
    if (!same)
        foreign(sk, program, path, h.program);
    if (same && head)
        *head = h;
    else
        store_head_free(&h);
    return same;
}

/* With a reference run: the candidates are the runs of its executable, known from their
 * heads; the others are never read in full. */
static int heads(const char *dir, char **files, int nfiles, const struct profile *like,
                 struct cand *c, struct skipped *sk, store_warn_fn warn, void *arg)
{
    int n = 0;
    char path[4096];
    struct store_head h;
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (!named(path, like->program, &h, sk, warn, arg))
            continue;
        if (params_ok(path, h.params, h.nparams, warn, arg)) {
            c[n++] = (struct cand){.path = strdup(path), .start = h.start, .scale = h.scale,
                                   .params = h.params, .nparams = h.nparams, .order = i,
                                   .rows = -1};
            h.start = h.scale = NULL;
            h.params = NULL;
        }
        store_head_free(&h);
    }
    return n;
}

/* Without one: every run (of the executable named program, when given: the others known
 * from their heads) is read once and held as a skeleton to find the program with the most
 * runs (its runs are the candidates, their rows known); its reference in *ref. */
static int skeletons(const char *dir, char **files, int nfiles, const char *program,
                     struct profile *ref, struct cand *c, struct skipped *skip,
                     store_warn_fn warn, void *arg)
{
    struct profile *sk = calloc((size_t)nfiles + 1, sizeof *sk);
    long *rows_of = calloc((size_t)nfiles + 1, sizeof *rows_of);
    int *order = calloc((size_t)nfiles + 1, sizeof *order), n = 0, best = 0, nc = 0;
    char path[4096], **scales = calloc((size_t)nfiles + 1, sizeof *scales);
    for (int i = 0; sk && rows_of && order && scales && i < nfiles; i++) {
        struct profile r;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if ((program && !named(path, program, NULL, skip, warn, arg)) ||
            read_run(path, &r, warn, arg) < 0)
            continue;
        if (!params_ok(path, r.params, r.nparams, warn, arg)) {
            profile_free(&r);
            continue;
        }
        rows_of[n] = (long)r.rows.n;
        order[n] = i;
        scales[n] = store_scale(r.ranks, r.params, r.nparams);
        if (skeleton(&r, &sk[n]) == 0)
            n++;
        else {
            profile_free(&sk[n]);
            free(scales[n]);
        }
        profile_free(&r);
    }
    int pick = -1;
    for (int i = 0; i < n; i++) {
        int count = 0;
        for (int j = 0; j < n; j++)
            count += same_program(&sk[i], &sk[j]);
        if (count > best) {
            best = count;
            pick = i;
        }
    }
    for (int i = 0; pick >= 0 && i < n; i++)
        if (!same_program(&sk[pick], &sk[i]))
            foreign(skip, sk[pick].program, sk[i].path, sk[i].program);
        else {
            c[nc++] = (struct cand){.path = strdup(sk[i].path),
                                    .start = sk[i].start_time ? strdup(sk[i].start_time) : NULL,
                                    .scale = scales[i], .params = sk[i].params,
                                    .nparams = sk[i].nparams, .order = order[i],
                                    .rows = rows_of[i]};
            scales[i] = NULL;
            sk[i].params = NULL;
            sk[i].nparams = 0;
        }
    if (pick >= 0)
        skeleton(&sk[pick], ref);
    for (int i = 0; i < n; i++) {
        profile_free(&sk[i]);
        free(scales[i]);
    }
    free(sk);
    free(scales);
    free(rows_of);
    free(order);
    return nc;
}

static int oldest_first(const void *x, const void *y)
{
    const struct profile *a = x, *b = y;
    int c = strcmp(a->start_time ? a->start_time : "", b->start_time ? b->start_time : "");
    return c ? c : strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

/* The warning that runs were left out, and which were kept. */
static void say_left_out(const struct kept *k, const char *dir, const struct store_bound *bound,
                         store_warn_fn warn, void *arg)
{
    char line[4400], kept[96];
    const char *name = base_name(k->runs[0].program);
    if (k->scales <= 1)
        snprintf(kept, sizeof kept, "the newest %d runs", k->n);
    else if (k->scales_kept == k->scales)
        snprintf(kept, sizeof kept, "%d runs (the newest at each of its %d scales first)", k->n,
                 k->scales);
    else
        snprintf(kept, sizeof kept, "%d runs (the newest at %d of its %d scales)", k->n,
                 k->scales_kept, k->scales);
    snprintf(line, sizeof line, "%s of %s in %s are used, %d %s not (at most %d runs and %ld "
             "rows are kept)", kept, name, dir, k->dropped,
             k->scales <= 1 ? "older ones are" : k->dropped > 1 ? "others are" : "other is",
             bound->runs, bound->rows);
    warn(line, arg);
}

int store_load(const char *dir, const struct profile *like, const char *program,
               const struct store_bound *bound, struct profile **runs, store_warn_fn warn,
               void *arg, char *err, size_t errlen)
{
    static const struct store_bound dflt = {STORE_MAX_RUNS, STORE_MAX_ROWS};
    int nfiles = 0, n = 0;
    char **files = json_files(dir, &nfiles);
    bound = bound ? bound : &dflt;
    *runs = NULL;
    if (!files) {
        snprintf(err, errlen, "cannot read the run store %s: %s", dir, strerror(errno));
        return -1;
    }
    struct profile ref;
    profile_init(&ref);
    struct cand *c = calloc((size_t)nfiles + 1, sizeof *c);
    struct kept k = {.runs = calloc((size_t)nfiles + 1, sizeof *k.runs)};
    struct skipped skip = {0};
    if (c && k.runs) {
        n = like ? heads(dir, files, nfiles, like, c, &skip, warn, arg)
                 : skeletons(dir, files, nfiles, program, &ref, c, &skip, warn, arg);
        n = one_parameter_set(c, n, like, like ? like->program : ref.program, dir, warn, arg);
        read_in_turns(&k, c, n, like ? like : &ref, bound, &skip, warn, arg);
    }
    say_skipped(&skip, like ? like->program : ref.program ? ref.program : program, dir, warn,
                arg);
    for (int i = 0; i < n; i++) {
        free(c[i].path);
        free(c[i].start);
        free(c[i].scale);
        store_params_free(c[i].params, c[i].nparams);
    }
    free(c);
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    profile_free(&ref);
    if (k.runs) /* oldest first, as in tardy.runs() */
        qsort(k.runs, (size_t)k.n, sizeof *k.runs, oldest_first);
    if (k.dropped)
        say_left_out(&k, dir, bound, warn, arg);
    *runs = k.runs;
    return k.runs ? k.n : 0;
}

void store_free(struct profile *runs, int n)
{
    for (int i = 0; i < n; i++)
        profile_free(&runs[i]);
    free(runs);
}
