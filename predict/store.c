/* Reading the run store. */
#include "predict.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The runs kept: the newest ones, in order of age, up to the first that would take them over
 * bound->runs runs or bound->rows rows in all (one run is always kept). Read in any order, a
 * run older than one left out is left out too (cut), so that the same store gives the same
 * runs however its files are read. */
struct kept {
    struct profile *runs;
    int *order; /* the order each was read in, for ties of start time */
    int n, dropped;
    long rows;
    char *cut; /* the start of the newest run left out (cut_order: as read), when cut_set */
    int cut_order, cut_set;
};

/* Would a run of rows rows beside the kept ones stay within bound? */
static int fits(const struct kept *k, long rows, const struct store_bound *bound)
{
    return k->n == 0 || (k->n < bound->runs && k->rows + rows <= bound->rows);
}

/* Leave out the run started at start (read as the i-th): a kept run is never older. */
static void leave_out(struct kept *k, const char *start, int i)
{
    if (!k->cut_set || older(k->cut, k->cut_order, start, i)) {
        free(k->cut);
        k->cut = start ? strdup(start) : NULL;
        k->cut_order = i;
        k->cut_set = 1;
    }
    k->dropped++;
}

/* Keep r (read as the i-th) unless it is older than a run left out, then leave out the oldest
 * kept runs until within bound. */
static void keep(struct kept *k, struct profile *r, int i, const struct store_bound *bound)
{
    if (k->cut_set && older(r->start_time, i, k->cut, k->cut_order)) {
        leave_out(k, r->start_time, i);
        profile_free(r);
        return;
    }
    k->runs[k->n] = *r;
    k->order[k->n++] = i;
    k->rows += (long)r->rows.n;
    while (k->n > 1 && (k->n > bound->runs || k->rows > bound->rows)) {
        int old = 0;
        for (int j = 1; j < k->n; j++)
            if (older(k->runs[j].start_time, k->order[j], k->runs[old].start_time,
                      k->order[old]))
                old = j;
        struct profile gone = k->runs[old];
        int gone_order = k->order[old];
        k->rows -= (long)gone.rows.n;
        memmove(&k->runs[old], &k->runs[old + 1], (size_t)(k->n - old - 1) * sizeof *k->runs);
        memmove(&k->order[old], &k->order[old + 1], (size_t)(k->n - old - 1) * sizeof *k->order);
        k->n--;
        leave_out(k, gone.start_time, gone_order);
        profile_free(&gone);
    }
}

/* The warning for run r, which is not a run of ref's program. */
static void foreign(const struct profile *ref, const struct profile *r, store_warn_fn warn,
                    void *arg)
{
    char msg[4200];
    if (!strcmp(base_name(r->program), base_name(ref->program)))
        snprintf(msg, sizeof msg, "skipping %s: a run of %s with other MPI call sites "
                 "(changed code or TARDY_DEPTH)", r->path, base_name(ref->program));
    else
        snprintf(msg, sizeof msg, "skipping %s: a run of %s, not of %s", r->path,
                 base_name(r->program), base_name(ref->program));
    warn(msg, arg);
}

/* run reduced to what choosing the program takes: its program, path, start time and MPI call
 * sites (a few KB where the run may hold MBs); 0, or -1 when memory is short */
static int skeleton(const struct profile *run, struct profile *sk)
{
    profile_init(sk);
    sk->program = run->program ? strdup(run->program) : NULL;
    sk->path = run->path ? strdup(run->path) : NULL;
    sk->start_time = run->start_time ? strdup(run->start_time) : NULL;
    int ok = (!run->program || sk->program) && (!run->path || sk->path) &&
             (!run->start_time || sk->start_time);
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

int store_load(const char *dir, const struct profile *like, const struct store_bound *bound,
               struct profile **runs, store_warn_fn warn, void *arg, char *err, size_t errlen)
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
    /* Without a reference run, the program with the most runs is the reference: every run is
     * read once and held as a skeleton (sk) to find it, then the reference's runs read again. */
    struct profile *sk = like ? NULL : calloc((size_t)nfiles + 1, sizeof *sk);
    size_t *rows_of = like ? NULL : calloc((size_t)nfiles + 1, sizeof *rows_of);
    struct kept k = {.runs = calloc((size_t)nfiles + 1, sizeof *k.runs),
                     .order = calloc((size_t)nfiles + 1, sizeof *k.order)};
    char path[4096], line[4300];
    for (int i = 0; (like || (sk && rows_of)) && k.runs && k.order && i < nfiles; i++) {
        struct profile r;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (read_run(path, &r, warn, arg) < 0)
            continue;
        if (!like) {
            rows_of[n] = r.rows.n;
            if (skeleton(&r, &sk[n]) == 0)
                n++;
            else
                profile_free(&sk[n]);
            profile_free(&r);
        } else if (same_program(like, &r)) {
            keep(&k, &r, i, bound);
        } else {
            foreign(like, &r, warn, arg);
            profile_free(&r);
        }
    }
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    const struct profile *ref = like;
    int best = 0;
    for (int i = 0; !like && i < n; i++) {
        int c = 0;
        for (int j = 0; j < n; j++)
            c += same_program(&sk[i], &sk[j]);
        if (c > best) {
            best = c;
            ref = &sk[i];
        }
    }
    /* the reference's runs, newest first, read again while within the bound */
    unsigned char *done = calloc((size_t)n + 1, 1);
    for (int i = 0; done && i < n; i++)
        if (!same_program(ref, &sk[i])) {
            foreign(ref, &sk[i], warn, arg);
            done[i] = 1;
        }
    while (done && k.runs && k.order) {
        int next = -1;
        for (int i = 0; i < n; i++)
            if (!done[i] && (next < 0 || older(sk[next].start_time, next, sk[i].start_time, i)))
                next = i;
        if (next < 0)
            break;
        done[next] = 1;
        struct profile r;
        if (k.cut_set || !fits(&k, (long)rows_of[next], bound))
            leave_out(&k, sk[next].start_time, next); /* beyond the bound: not read again */
        else if (read_run(sk[next].path, &r, warn, arg) == 0)
            keep(&k, &r, next, bound);
    }
    free(done);
    free(rows_of);
    for (int i = 0; i < n; i++)
        profile_free(&sk[i]);
    free(sk);
    /* oldest first (start time, then as read), as at finalize and in tardy.runs() */
    for (int i = 1; k.runs && k.order && i < k.n; i++)
        for (int j = i; j > 0 && older(k.runs[j].start_time, k.order[j], k.runs[j - 1].start_time,
                                       k.order[j - 1]);
             j--) {
            struct profile t = k.runs[j];
            int o = k.order[j];
            k.runs[j] = k.runs[j - 1], k.order[j] = k.order[j - 1];
            k.runs[j - 1] = t, k.order[j - 1] = o;
        }
    free(k.order);
    free(k.cut);
    if (k.dropped) {
        snprintf(line, sizeof line, "the newest %d runs of %s in %s are used, %d older ones are "
                 "not (at most %d runs and %ld rows are kept)", k.n,
                 base_name(k.runs[0].program), dir, k.dropped, bound->runs, bound->rows);
        warn(line, arg);
    }
    *runs = k.runs;
    return k.runs ? k.n : 0;
}

void store_free(struct profile *runs, int n)
{
    for (int i = 0; i < n; i++)
        profile_free(&runs[i]);
    free(runs);
}
