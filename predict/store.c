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

/* Is run a older than run b (start time, then the order read; a run without a start time is
 * oldest)? */
static int older(const struct profile *a, int ia, const struct profile *b, int ib)
{
    int c = strcmp(a->start_time ? a->start_time : "", b->start_time ? b->start_time : "");
    return c ? c < 0 : ia < ib;
}

/* The runs kept: at most bound->runs and bound->rows rows in all, the newest. */
struct kept {
    struct profile *runs;
    int *order; /* the order each was read in, for ties of start time */
    int n, dropped;
    long rows;
};

/* Keep r (read as the i-th), then drop the oldest kept runs until within bound (one run is
 * always kept). */
static void keep(struct kept *k, struct profile *r, int i, const struct store_bound *bound)
{
    k->runs[k->n] = *r;
    k->order[k->n++] = i;
    k->rows += (long)r->rows.n;
    while (k->n > 1 && (k->n > bound->runs || k->rows > bound->rows)) {
        int old = 0;
        for (int j = 1; j < k->n; j++)
            if (older(&k->runs[j], k->order[j], &k->runs[old], k->order[old]))
                old = j;
        k->rows -= (long)k->runs[old].rows.n;
        profile_free(&k->runs[old]);
        memmove(&k->runs[old], &k->runs[old + 1], (size_t)(k->n - old - 1) * sizeof *k->runs);
        memmove(&k->order[old], &k->order[old + 1], (size_t)(k->n - old - 1) * sizeof *k->order);
        k->n--;
        k->dropped++;
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
    /* With a reference run, the others are dropped as they are read (and the oldest runs of
     * the program once the bound is reached); without one every run is read first, and the
     * program with the most runs is the reference. */
    struct profile *all = like ? NULL : calloc((size_t)nfiles + 1, sizeof *all);
    struct kept k = {calloc((size_t)nfiles + 1, sizeof *k.runs),
                     calloc((size_t)nfiles + 1, sizeof *k.order), 0, 0, 0};
    char path[4096], msg[4200], line[4300];
    for (int i = 0; (like || all) && k.runs && k.order && i < nfiles; i++) {
        struct profile r;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        profile_init(&r);
        if (profile_read(&r, path, msg, sizeof msg) < 0) {
            snprintf(line, sizeof line, "skipping %s", msg);
            warn(line, arg);
            profile_free(&r);
        } else if (!like) {
            all[n++] = r;
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
            c += same_program(&all[i], &all[j]);
        if (c > best) {
            best = c;
            ref = &all[i];
        }
    }
    /* which runs are the reference's, before keeping frees any (the reference among them) */
    unsigned char *mine = calloc((size_t)n + 1, 1);
    for (int i = 0; mine && ref && i < n; i++) {
        mine[i] = same_program(ref, &all[i]);
        if (!mine[i])
            foreign(ref, &all[i], warn, arg);
    }
    for (int i = 0; i < n; i++) {
        if (mine && mine[i] && k.runs && k.order)
            keep(&k, &all[i], i, bound);
        else
            profile_free(&all[i]);
    }
    free(mine);
    free(all);
    free(k.order);
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
