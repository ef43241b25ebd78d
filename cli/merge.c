/* `tardy merge FILES|DIR [-o OUT.json] [--top N]`: the partial profiles a job left behind
 * (one per rank that went down early or wrote a snapshot, and merged ones) reduced into one
 * profile marked partial, with its summary: the rows are merged as the reduction at
 * MPI_Finalize merges ranks (profile_merge_rows: prof_nums_merge per call site); which ranks
 * contributed, why each stopped, and which are missing. */
#include "merge.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shared.h"
#include "tool/base/base.h"
#include "tool/profile/profile.h"

struct inputs {
    char **path;
    int n, cap;
};

static int add_input(struct inputs *in, const char *path)
{
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 16;
        char **np = realloc(in->path, (size_t)cap * sizeof *np);
        if (!np)
            return -1;
        in->path = np;
        in->cap = cap;
    }
    return (in->path[in->n++] = strdup(path)) ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* The partial profiles in dir (*.partial.json). */
static int add_dir(struct inputs *in, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "tardy merge: cannot read directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int before = in->n;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".partial.json"))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (add_input(in, path) < 0)
            break;
    }
    closedir(d);
    qsort(in->path + before, (size_t)(in->n - before), sizeof *in->path, by_name);
    if (in->n == before) {
        fprintf(stderr, "tardy merge: no partial profiles (*.partial.json) in %s\n", dir);
        return -1;
    }
    return 0;
}

/* Add the per-rank compute values behind p's rank histogram to the values list. */
static int add_hist_values(const struct profile *p, double **v, size_t *n, size_t *cap)
{
    double w = (p->rank_hist_hi - p->rank_hist_lo) / RANK_HIST_BINS;
    for (int b = 0; b < RANK_HIST_BINS; b++)
        for (uint64_t c = 0; c < p->rank_hist[b] && c < (uint64_t)p->ranks; c++) {
            if (*n == *cap) {
                *cap = *cap ? 2 * *cap : 64;
                double *nv = realloc(*v, *cap * sizeof *nv);
                if (!nv)
                    return -1;
                *v = nv;
            }
            (*v)[(*n)++] = w > 0 ? p->rank_hist_lo + (b + 0.5) * w : p->rank_hist_lo;
        }
    return 0;
}

static void set_histogram(struct profile *out, const double *v, size_t n)
{
    memset(out->rank_hist, 0, sizeof out->rank_hist);
    if (!n)
        return;
    double lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
    }
    out->rank_hist_lo = lo;
    out->rank_hist_hi = hi;
    double w = (hi - lo) / RANK_HIST_BINS;
    for (size_t i = 0; i < n; i++) {
        int b = w > 0 ? (int)((v[i] - lo) / w) : 0;
        out->rank_hist[b < RANK_HIST_BINS ? b : RANK_HIST_BINS - 1]++;
    }
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static int merge(struct inputs *in, const char *out_path, int top)
{
    struct profile out, p;
    char err[1024];
    int rc = 1, complete = -1;
    double *vals = NULL;
    size_t nvals = 0, capvals = 0;
    char **owner = NULL; /* per rank: the file that brought it */
    char **hosts = NULL;
    int nhosts = 0;
    profile_init(&out);
    for (int i = 0; i < in->n; i++) {
        profile_init(&p);
        if (profile_read(&p, in->path[i], err, sizeof err) < 0) {
            fprintf(stderr, "tardy merge: %s\n", err);
            goto fail;
        }
        if (!p.run_id) {
            fprintf(stderr, "tardy merge: %s: no run_id (a profile of a tardy without partial "
                            "profiles); cannot tell which job it is from\n", in->path[i]);
            goto fail;
        }
        if (i == 0) {
            /* The first input's metadata describes the run; its rows are merged below. */
            out = p;
            profile_init(&p);
            rowset_free(&out.rows);
            rowset_init(&out.rows);
            for (int s = 0; s < out.nstops; s++) {
                free(out.stops[s].reason);
                free(out.stops[s].signal);
                free(out.stops[s].where);
                free(out.stops[s].time);
            }
            free(out.stops);
            out.stops = NULL;
            out.nstops = 0;
            free(out.path);
            out.path = NULL;
            if (profile_read(&p, in->path[i], err, sizeof err) < 0) {
                fprintf(stderr, "tardy merge: %s\n", err);
                goto fail;
            }
            owner = calloc((size_t)out.ranks, sizeof *owner);
            hosts = calloc((size_t)in->n, sizeof *hosts);
            if (!owner || !hosts) {
                fprintf(stderr, "tardy merge: out of memory\n");
                goto fail;
            }
        } else if (strcmp(p.run_id, out.run_id) || p.ranks != out.ranks) {
            fprintf(stderr, "tardy merge: %s is from another job (run %s, %d ranks) than %s "
                            "(run %s, %d ranks); merge the files of one job at a time\n",
                    in->path[i], p.run_id, p.ranks, in->path[0], out.run_id, out.ranks);
            goto fail;
        }
        if (!p.partial) {
            complete = i;
            profile_free(&p);
            continue;
        }
        for (int s = 0; s < p.nstops; s++) {
            int r = p.stops[s].rank;
            if (owner[r]) {
                fprintf(stderr, "tardy merge: rank %d is in both %s and %s\n", r, owner[r],
                        in->path[i]);
                goto fail;
            }
            owner[r] = in->path[i];
            if (profile_add_stop(&out, &p.stops[s]) < 0) {
                fprintf(stderr, "tardy merge: out of memory\n");
                goto fail;
            }
        }
        if (profile_merge_rows(&out, &p) < 0 || add_hist_values(&p, &vals, &nvals, &capvals) < 0) {
            fprintf(stderr, "tardy merge: out of memory merging %s\n", in->path[i]);
            goto fail;
        }
        int known = 0;
        for (int h = 0; h < nhosts; h++)
            known |= p.host && !strcmp(hosts[h], p.host);
        if (p.host && !known)
            hosts[nhosts++] = strdup(p.host);
        profile_free(&p);
    }
    if (complete >= 0) {
        /* A job that reached MPI_Finalize has its complete profile: nothing to merge. */
        fprintf(stderr, "tardy merge: %s is the complete profile of this job; it is shown "
                        "as it is\n", in->path[complete]);
        profile_free(&out);
        profile_init(&out);
        if (profile_read(&out, in->path[complete], err, sizeof err) < 0) {
            fprintf(stderr, "tardy merge: %s\n", err);
            goto fail;
        }
    } else {
        out.partial = 1;
        out.hosts = nhosts;
        set_histogram(&out, vals, nvals);
        profile_sort_stops(&out);
    }
    if (out_path) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", out_path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        if (profile_write_as(&out, dir, base_name(out_path), err, sizeof err) < 0) {
            fprintf(stderr, "tardy merge: %s\n", err);
            goto fail;
        }
    }
    struct strbuf text;
    sb_init(&text);
    summary_write(&out, top, &text);
    print_text(&text);
    rc = 0;
fail:
    profile_free(&p);
    profile_free(&out);
    free(vals);
    free(owner);
    for (int h = 0; h < nhosts; h++)
        free(hosts[h]);
    free(hosts);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    struct inputs in = {0};
    const char *out = NULL;
    int top = 10, rc = 2;
    for (int i = 0; i < argc; i++) {
        struct stat st;
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--top") && i + 1 < argc) {
            if (parse_top("merge", argv[++i], &top) < 0)
                goto out;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "tardy merge: unknown option '%s'\n", argv[i]);
            goto out;
        } else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (add_dir(&in, argv[i]) < 0) {
                rc = 1;
                goto out;
            }
        } else if (add_input(&in, argv[i]) < 0) {
            fprintf(stderr, "tardy merge: out of memory\n");
            rc = 1;
            goto out;
        }
    }
    if (!in.n) {
        fprintf(stderr, "tardy merge: which profiles? usage: tardy merge FILES|DIR "
                        "[-o OUT.json] [--top N]\n");
        goto out;
    }
    rc = merge(&in, out, top);
out:
    for (int i = 0; i < in.n; i++)
        free(in.path[i]);
    free(in.path);
    return rc;
}
