/* JSON profile, written and read with jansson. */
#include "profile_json.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool/base/base.h"

/* ---- writing ----------------------------------------------------------------------------- */

/* [sum, min, min_rank, max, max_rank, ranks]; the mean is sum / run.ranks. */
static json_t *stat_json(const struct red_stat *s)
{
    if (!s->ranks)
        return json_pack("[i,i,i,i,i,i]", 0, 0, -1, 0, -1, 0);
    return json_pack("[f,f,i,f,i,i]", s->sum, s->min, s->min_rank, s->max, s->max_rank,
                     (int)s->ranks);
}

/* The histogram a row implies where version 2 leaves it out: n values summing to sum, all in
 * the bin of the largest, max (no bins when n is 0). The writer leaves out exactly the
 * histograms equal to it, the reader fills them in. */
static void hist_implied(struct hist *h, double n, double sum, double max)
{
    memset(h, 0, sizeof *h);
    if (n > 0) {
        h->count[hist_bin(max)] = (uint64_t)n;
        h->sum[hist_bin(max)] = sum;
    }
}

/* Sparse bins [[bin, count, seconds], ...], or NULL (left out) when they say no more than
 * the row: the histogram implied by n values summing to sum, the largest max. */
static json_t *hist_json(const struct hist *h, double n, double sum, double max)
{
    struct hist implied;
    hist_implied(&implied, n, sum, max);
    int same = 1;
    for (int b = 0; b < HIST_BINS && same; b++)
        same = h->count[b] == implied.count[b] && h->sum[b] == implied.sum[b];
    if (same)
        return NULL;
    json_t *bins = json_array();
    for (int b = 0; b < HIST_BINS; b++)
        if (h->count[b])
            json_array_append_new(bins, json_pack("[i,I,f]", b, (json_int_t)h->count[b],
                                                  h->sum[b]));
    return bins;
}

/* The statistic a row implies where version 2 leaves "sent" or "recv" out: no byte on any
 * of the ranks that have the row (count's), min and max at the lowest of them by the tie
 * rule, which is count's min_rank or max_rank, whichever is lower. */
static void zero_implied(struct red_stat *s, const struct red_stat *count)
{
    memset(s, 0, sizeof *s);
    s->ranks = count->ranks;
    s->min_rank = s->max_rank = !count->ranks                       ? -1
                                : count->min_rank < count->max_rank ? count->min_rank
                                                                    : count->max_rank;
}

/* Bytes sent or received, or NULL (left out) when they are the zero the row implies. */
static json_t *bytes_json(const struct red_stat *s, const struct red_stat *count)
{
    struct red_stat zero;
    zero_implied(&zero, count);
    if (s->sum == 0 && s->min == 0 && s->max == 0 && s->ranks == zero.ranks &&
        s->min_rank == zero.min_rank && s->max_rank == zero.max_rank)
        return NULL;
    return stat_json(s);
}

/* Sets key to value unless value is NULL (left out). */
static void set_some(json_t *o, const char *key, json_t *value)
{
    if (value)
        json_object_set_new(o, key, value);
}

static json_t *memory_json(const struct prof_nums *n)
{
    return json_pack("{s:o,s:o,s:o,s:o}", "allocs", stat_json(&n->mem_allocs),
                     "alloc_bytes", stat_json(&n->mem_alloc), "freed_bytes",
                     stat_json(&n->mem_freed), "live_bytes",
                     stat_json(&n->mem_live));
}

/* The per-rank distribution of one counter, [[bin, ranks], ...], or NULL when all its ranks
 * share the bin of its largest total. */
static json_t *ctr_hist_json(const uint32_t *bins, const struct red_stat *s)
{
    int only = s->ranks ? ctr_rank_bin(s->max) : -1, same = 1;
    for (int b = 0; b < CTR_RANK_BINS && same; b++)
        same = bins[b] == (b == only ? s->ranks : 0);
    if (same)
        return NULL;
    json_t *a = json_array();
    for (int b = 0; b < CTR_RANK_BINS; b++)
        if (bins[b])
            json_array_append_new(a, json_pack("[i,I]", b, (json_int_t)bins[b]));
    return a;
}

/* {"EVENT": {"value": statistic, "ranks_histogram": [[bin, ranks], ...]}} */
static json_t *counters_json(const struct profile *p, const struct prof_nums *n)
{
    json_t *o = json_object();
    for (int k = 0; k < p->ncounters; k++) {
        json_t *c = json_pack("{s:o}", "value", stat_json(&n->ctr[k]));
        set_some(c, "ranks_histogram", ctr_hist_json(n->ctr_ranks[k], &n->ctr[k]));
        json_object_set_new(o, p->counters[k], c);
    }
    return o;
}

/* "source": where the columns come from, PAPI and/or MPI_T ("mpi_t:NAME" columns). */
static json_t *counter_meta_json(const struct profile *p)
{
    json_t *names = json_array();
    int pvars = 0;
    for (int k = 0; k < p->ncounters; k++) {
        json_array_append_new(names, json_string(p->counters[k]));
        pvars += !strncmp(p->counters[k], "mpi_t:", 6);
    }
    const char *source = !pvars ? "PAPI" : pvars == p->ncounters ? "MPI_T" : "PAPI,MPI_T";
    json_t *o = json_pack("{s:s,s:o,s:b}", "source", source, "events", names, "multiplex",
                          p->counter_multiplex);
    if (p->counter_note)
        json_object_set_new(o, "note", json_string(p->counter_note));
    return o;
}

static json_t *params_json(const struct profile *p)
{
    json_t *o = json_object();
    for (int i = 0; i < p->nparams; i++) {
        char *end;
        const char *v = p->params[i].value;
        double x = strtod(v, &end);
        if (*v && !*end && isfinite(x))
            json_object_set_new(o, p->params[i].key, json_real(x));
        else
            json_object_set_new(o, p->params[i].key, json_string(v));
    }
    return o;
}

static json_t *run_json_base(const struct profile *p)
{
    json_t *args = json_array();
    for (int i = 0; i < p->argc; i++)
        json_array_append_new(args, json_string(p->argv[i]));
    return json_pack("{s:s,s:o,s:i,s:i,s:s,s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:o}",
                     "program", p->program ? p->program : "", "args", args, "ranks", p->ranks,
                     "hosts", p->hosts, "host", p->host ? p->host : "", "thread_level",
                     p->thread_level, "mpi_library", p->mpi_library ? p->mpi_library : "",
                     "mpi_version", p->mpi_version ? p->mpi_version : "", "tardy_version",
                     p->tardy_version ? p->tardy_version : "", "clock",
                     p->clock ? p->clock : "", "start_time", p->start_time ? p->start_time : "",
                     "callpath_depth", p->depth, "params", params_json(p));
}

json_t *pj_run(const struct profile *p)
{
    json_t *o = run_json_base(p);
    json_object_set_new(o, "interface", json_string(p->interface ? p->interface : "PMPI"));
    if (p->run_id)
        json_object_set_new(o, "run_id", json_string(p->run_id));
    return o;
}

static json_t *partial_json(const struct profile *p)
{
    json_t *stops = json_array();
    for (int i = 0; i < p->nstops; i++) {
        const struct prof_stop *s = &p->stops[i];
        json_t *o = json_pack("{s:i,s:s,s:i,s:s,s:f}", "rank", s->rank, "reason",
                              s->reason ? s->reason : "?", "code", s->code, "time",
                              s->time ? s->time : "", "wall", s->wall);
        if (s->signal)
            json_object_set_new(o, "signal", json_string(s->signal));
        if (s->where)
            json_object_set_new(o, "where", json_string(s->where));
        json_array_append_new(stops, o);
    }
    struct strbuf miss;
    sb_init(&miss);
    profile_missing_ranks(p, &miss);
    json_t *o = json_pack("{s:i,s:o,s:s}", "ranks_present", p->nstops, "stopped", stops,
                          "missing", miss.data ? miss.data : "");
    sb_free(&miss);
    return o;
}

static json_t *rows_json(const struct profile *p, int kind, struct pj_paths *t)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < p->rows.n; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        if (r->kind != kind)
            continue;
        const struct prof_nums *n = &r->n;
        json_t *o = json_object();
        if (kind == ROW_MPI) {
            json_t *site = pj_site(t, r->a);
            json_object_update(o, site);
            json_decref(site);
        } else {
            json_object_set_new(o, "from", pj_site(t, r->a));
            json_object_set_new(o, "to", pj_site(t, r->b ? r->b : ""));
        }
        json_object_set_new(o, "count", stat_json(&n->count));
        json_object_set_new(o, "time", stat_json(&n->time));
        if (kind == ROW_MPI) {
            set_some(o, "sent", bytes_json(&n->sent, &n->count));
            set_some(o, "recv", bytes_json(&n->recv, &n->count));
            if (n->mem_allocs.ranks)
                json_object_set_new(o, "memory", memory_json(n));
        } else {
            json_object_set_new(o, "sumsq", json_real(n->sumsq));
        }
        json_object_set_new(o, "call_min", json_real(isfinite(n->call_min) ? n->call_min : 0));
        json_object_set_new(o, "call_max", json_real(n->call_max));
        set_some(o, "histogram", hist_json(&n->calls, n->count.sum, n->time.sum, n->call_max));
        set_some(o, "ranks_histogram",
                 hist_json(&n->ranks, n->time.ranks, n->time.sum, n->time.max));
        if (p->ncounters)
            json_object_set_new(o, "counters", counters_json(p, n));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* MPI_T: the library's inventory, recorded control variables, performance variables and
 * events reduced over ranks. */
static json_t *mpit_json(const struct profile *p, struct pj_paths *t)
{
    json_t *cvars = json_array(), *pvars = json_array(), *events = json_array();
    for (int i = 0; i < p->ncvars; i++) {
        const struct prof_cvar *c = &p->cvars[i];
        json_t *o = json_pack("{s:s,s:s}", "name", c->name, "value", c->value);
        if (c->written) {
            json_object_set_new(o, "written", json_string(c->written));
            json_object_set_new(o, "origin", json_string(c->origin ? c->origin : ""));
            json_object_set_new(o, "before", json_string(c->before ? c->before : ""));
        }
        json_array_append_new(cvars, o);
    }
    for (size_t i = 0; i < p->rows.n; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        if (r->kind == ROW_PVAR)
            json_array_append_new(pvars, json_pack("{s:s,s:s,s:o}", "name", r->a, "class",
                                                   r->b ? r->b : "", "value",
                                                   stat_json(&r->n.time)));
        if (r->kind == ROW_EVENT) {
            json_t *o = json_pack("{s:s}", "event", r->a);
            json_t *site = pj_site(t, r->b ? r->b : "");
            json_object_update(o, site);
            json_decref(site);
            json_object_set_new(o, "count", stat_json(&r->n.count));
            json_array_append_new(events, o);
        }
    }
    json_t *o = json_pack("{s:i,s:i,s:i,s:o,s:o,s:o}", "cvars_total", p->cvars_total,
                          "pvars_total", p->pvars_total, "events_total", p->events_total,
                          "cvars", cvars, "pvars", pvars, "events", events);
    if (p->mpit_note)
        json_object_set_new(o, "note", json_string(p->mpit_note));
    return o;
}

/* A region of a late rank: "from\tto" (compute interval), "site" (MPI call), "?…" (none). */
static json_t *region_json(struct pj_paths *t, const char *b)
{
    if (b[0] == '?')
        return json_pack("{s:s}", "unknown", b[1] ? b + 1 : "no hotspot region");
    const char *tab = strchr(b, '\t');
    if (!tab)
        return json_pack("{s:o}", "mpi", pj_site(t, b));
    char *from = strndup(b, (size_t)(tab - b));
    json_t *o = json_pack("{s:o,s:o}", "from", pj_site(t, from ? from : ""), "to",
                          pj_site(t, tab + 1));
    free(from);
    return o;
}

static json_t *waits_json(const struct profile *p, struct pj_paths *t)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < p->rows.n; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        if (r->kind != ROW_WAIT)
            continue;
        const struct prof_nums *n = &r->n;
        json_t *o = json_pack("{s:s}", "pattern", r->a);
        json_t *site = pj_site(t, r->b ? r->b : "");
        json_object_update(o, site);
        json_decref(site);
        json_object_set_new(o, "count", stat_json(&n->count));
        json_object_set_new(o, "time", stat_json(&n->time));
        json_object_set_new(o, "late", stat_json(&n->late));
        json_object_set_new(o, "call_max", json_real(n->call_max));
        set_some(o, "histogram", hist_json(&n->calls, n->count.sum, n->time.sum, n->call_max));
        set_some(o, "ranks_histogram",
                 hist_json(&n->ranks, n->time.ranks, n->time.sum, n->time.max));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *causes_json(const struct profile *p, struct pj_paths *t)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < p->rows.n; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        const char *nl = r->kind == ROW_CAUSE ? strchr(r->a, '\n') : NULL;
        if (!nl)
            continue;
        char *pattern = strndup(r->a, (size_t)(nl - r->a));
        json_t *o = json_pack("{s:s,s:o,s:o,s:o,s:o}", "pattern", pattern ? pattern : "",
                              "site", pj_site(t, nl + 1), "region",
                              region_json(t, r->b ? r->b : "?"), "cost",
                              stat_json(&r->n.time), "count",
                              stat_json(&r->n.count));
        free(pattern);
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *ranks_json(const struct profile *p)
{
    json_t *o = json_object();
    for (size_t i = 0; i < p->rows.n; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        if (r->kind == ROW_RANK)
            json_object_set_new(o, r->a, stat_json(&r->n.time));
    }
    json_t *bins = json_array();
    for (int b = 0; b < RANK_HIST_BINS; b++)
        json_array_append_new(bins, json_integer((json_int_t)p->rank_hist[b]));
    json_object_set_new(o, "compute_histogram", json_pack("{s:f,s:f,s:o}", "lo",
                                                          p->rank_hist_lo, "hi",
                                                          p->rank_hist_hi, "counts", bins));
    return o;
}

static json_t *predictions_json(const struct profile *p)
{
    json_t *arr = json_array();
    for (int i = 0; i < p->npredictions; i++) {
        const struct prof_prediction *q = &p->predictions[i];
        json_t *o = json_pack("{s:s,s:s,s:f,s:s,s:s,s:b}", "target", q->target, "metric",
                              q->metric, "value", q->value, "family", q->family, "model",
                              q->model, "extrapolated", q->extrapolated);
        if (isfinite(q->fit_error))
            json_object_set_new(o, "fit_error_pct", json_real(q->fit_error));
        if (isfinite(q->uncertainty))
            json_object_set_new(o, "uncertainty_pct", json_real(q->uncertainty));
        if (isfinite(q->low) && isfinite(q->high) && isfinite(q->coverage)) {
            json_object_set_new(o, "low", json_real(q->low));
            json_object_set_new(o, "high", json_real(q->high));
            json_object_set_new(o, "coverage", json_real(q->coverage));
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

/* The profile as a JSON tree (new reference). */
static json_t *profile_tree(struct profile *p)
{
    struct pj_paths t;
    pj_paths_init(&t);
    profile_round_ns(p);
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string(PROFILE_SCHEMA));
    json_object_set_new(root, "version", json_integer(PROFILE_VERSION));
    json_object_set_new(root, "run", pj_run(p));
    if (p->partial) {
        profile_sort_stops(p);
        json_object_set_new(root, "partial", partial_json(p));
    }
    json_object_set_new(root, "mpi", rows_json(p, ROW_MPI, &t));
    json_object_set_new(root, "intervals", rows_json(p, ROW_INTERVAL, &t));
    json_object_set_new(root, "ranks", ranks_json(p));
    if (p->cvars_total >= 0 || p->mpit_note)
        json_object_set_new(root, "mpi_t", mpit_json(p, &t));
    json_object_set_new(root, "waits", waits_json(p, &t));
    json_object_set_new(root, "wait_causes", causes_json(p, &t));
    pj_paths_put(&t, root);
    if (p->ncounters || p->counter_note)
        json_object_set_new(root, "counters", counter_meta_json(p));
    if (p->npredictions || p->prediction_note) {
        json_object_set_new(root, "predictions", predictions_json(p));
        if (p->prediction_note)
            json_object_set_new(root, "prediction_note", json_string(p->prediction_note));
    }
    return root;
}

char *profile_to_json(struct profile *p)
{
    json_t *root = profile_tree(p);
    char *text = pj_text(root);
    json_decref(root);
    return text;
}

char *profile_to_page_json(struct profile *p)
{
    json_t *root = profile_tree(p), *row;
    size_t i;
    const char *tables[] = {"mpi", "intervals", "waits"};
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
        json_array_foreach(json_object_get(root, tables[t]), i, row)
            json_object_del(row, "histogram");
    char *text = json_text(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(7));
    json_decref(root);
    return text;
}

char *predictions_to_json(const struct profile *p, const struct predictions_source *src)
{
    json_t *root = json_object(), *source = json_object();
    json_object_set_new(root, "schema", json_string("tardy-predictions"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(source, src->kind ? src->kind : "store", json_string(src->path ? src->path : ""));
    json_object_set_new(source, "runs", json_integer(src->runs));
    json_object_set_new(source, "program", json_string(src->program ? src->program : ""));
    json_object_set_new(root, "source", source);
    json_object_set_new(root, "policy", json_string(src->policy ? src->policy : ""));
    json_object_set_new(root, "targets", json_string(src->targets ? src->targets : ""));
    json_object_set_new(root, "predictions", predictions_json(p));
    if (p->prediction_note)
        json_object_set_new(root, "note", json_string(p->prediction_note));
    char *text = json_text(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    return text;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* p as JSON in a new file of dir named from prefix (mode 0644; synced when sync is set),
 * its name in tmp[PATH_MAX]. Returns 0, or -1 with the problem in err and no file left. */
static int write_temp(struct profile *p, const char *dir, const char *prefix, int sync,
                      char *tmp, char *err, size_t errlen)
{
    char *text = profile_to_json(p);
    if (!text) {
        snprintf(err, errlen, "out of memory while building the profile");
        return -1;
    }
    snprintf(tmp, PATH_MAX, "%s/%s-XXXXXX", dir, prefix);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
        free(text);
        return -1;
    }
    int short_write = fd_write_all(fd, text, strlen(text));
    free(text);
    if (short_write || write(fd, "\n", 1) != 1 || (sync && fsync(fd) != 0) || close(fd) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    chmod(tmp, 0644);
    return 0;
}

int profile_write(struct profile *p, const char *dir, char *err, size_t errlen)
{
    char tmp[PATH_MAX], final[PATH_MAX], stamp[32];
    if (write_temp(p, dir, ".tardy-profile", 1, tmp, err, errlen) < 0)
        return -1;
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    /* link() fails when the name exists, so a profile is never overwritten. */
    for (int k = 0; k < 1000; k++) {
        if (k == 0)
            snprintf(final, sizeof final, "%s/tardy-%s-%dp-%s-%d.json", dir,
                     base_name(p->program ? p->program : "app"), p->ranks, stamp, (int)getpid());
        else
            snprintf(final, sizeof final, "%s/tardy-%s-%dp-%s-%d-%d.json", dir,
                     base_name(p->program ? p->program : "app"), p->ranks, stamp, (int)getpid(),
                     k);
        if (link(tmp, final) == 0) {
            unlink(tmp);
            free(p->path);
            p->path = strdup(final);
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    snprintf(err, errlen, "cannot name the profile %s: %s", final, strerror(errno));
    unlink(tmp);
    return -1;
}

int profile_write_as(struct profile *p, const char *dir, const char *name, char *err,
                     size_t errlen)
{
    char tmp[PATH_MAX], final[PATH_MAX];
    /* No fsync: a snapshot must not stall the rank on the file system; rename alone makes
     * readers see the old file or the new one, never half of one. */
    if (write_temp(p, dir, ".tardy-partial", 0, tmp, err, errlen) < 0)
        return -1;
    snprintf(final, sizeof final, "%s/%s", dir, name);
    if (rename(tmp, final) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, final, strerror(errno));
        unlink(tmp);
        return -1;
    }
    free(p->path);
    p->path = strdup(final);
    return 0;
}

/* ---- reading ----------------------------------------------------------------------------- */

struct reader {
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    int version;              /* of the file: 1 or 2 */
    struct pj_pathtext paths; /* its call paths' frames by id */
};

static void bad(struct reader *rd, const char *what)
{
    if (!rd->failed)
        snprintf(rd->err, rd->errlen, "%s: %s", rd->path, what);
    rd->failed = 1;
}

static char *str_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return strdup(s ? s : "");
}

static double num_of(json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* A statistic: [sum, min, min_rank, max, max_rank, ranks] (version 2) or the object
 * {"sum", "mean", "min", "max", "min_rank", "max_rank", "ranks"} (version 1). */
static void read_stat(struct reader *rd, json_t *o, struct red_stat *s)
{
    if (json_is_array(o) && json_array_size(o) == 6) {
        s->sum = json_number_value(json_array_get(o, 0));
        s->min = json_number_value(json_array_get(o, 1));
        s->min_rank = (int32_t)json_integer_value(json_array_get(o, 2));
        s->max = json_number_value(json_array_get(o, 3));
        s->max_rank = (int32_t)json_integer_value(json_array_get(o, 4));
        s->ranks = (uint32_t)json_integer_value(json_array_get(o, 5));
        return;
    }
    if (!json_is_object(o)) {
        bad(rd, "a statistic is neither [sum, min, min_rank, max, max_rank, ranks] nor an object");
        return;
    }
    s->sum = num_of(o, "sum");
    s->min = num_of(o, "min");
    s->max = num_of(o, "max");
    s->min_rank = (int32_t)json_integer_value(json_object_get(o, "min_rank"));
    s->max_rank = (int32_t)json_integer_value(json_object_get(o, "max_rank"));
    s->ranks = (uint32_t)json_integer_value(json_object_get(o, "ranks"));
}

/* A histogram's sparse bins; where version 2 leaves it out, the one the row implies. */
static void read_hist(struct reader *rd, json_t *a, struct hist *h, double n, double sum,
                      double max)
{
    size_t i;
    json_t *bin;
    memset(h, 0, sizeof *h);
    if (!a) {
        if (rd->version >= 2)
            hist_implied(h, n, sum, max);
        return;
    }
    if (!json_is_array(a)) {
        bad(rd, "a histogram is not an array");
        return;
    }
    json_array_foreach(a, i, bin) {
        json_int_t b = json_integer_value(json_array_get(bin, 0));
        if (b < 0 || b >= HIST_BINS) {
            bad(rd, "a histogram bin is out of range");
            return;
        }
        h->count[b] = (uint64_t)json_integer_value(json_array_get(bin, 1));
        h->sum[b] = json_number_value(json_array_get(bin, 2));
    }
}

/* One counter: {"value": statistic, "ranks_histogram"} (version 2; the histogram left out
 * when every rank is in the bin of the largest total) or the statistic's object with
 * "ranks_histogram" (version 1). */
static void read_counter(struct reader *rd, json_t *c, struct red_stat *s, uint32_t *bins)
{
    json_t *value = json_object_get(c, "value"), *hist = json_object_get(c, "ranks_histogram");
    json_t *bin;
    size_t i;
    read_stat(rd, value ? value : c, s);
    if (!hist && rd->version >= 2 && s->ranks)
        bins[ctr_rank_bin(s->max)] = s->ranks;
    json_array_foreach(hist, i, bin) {
        json_int_t b = json_integer_value(json_array_get(bin, 0));
        if (b < 0 || b >= CTR_RANK_BINS) {
            bad(rd, "a counter histogram bin is out of range");
            return;
        }
        bins[b] = (uint32_t)json_integer_value(json_array_get(bin, 1));
    }
}

static void read_counters(struct reader *rd, const struct profile *p, json_t *o,
                          struct prof_nums *n)
{
    for (int k = 0; o && k < p->ncounters; k++) {
        json_t *c = json_object_get(o, p->counters[k]);
        if (c)
            read_counter(rd, c, &n->ctr[k], n->ctr_ranks[k]);
    }
}

static void read_counter_meta(struct profile *p, json_t *o)
{
    json_t *names = json_object_get(o, "events"), *v;
    size_t i;
    json_array_foreach(names, i, v) {
        if (p->ncounters < PROF_COUNTERS && json_is_string(v))
            p->counters[p->ncounters++] = strdup(json_string_value(v));
    }
    p->counter_multiplex = json_is_true(json_object_get(o, "multiplex"));
    const char *note = json_string_value(json_object_get(o, "note"));
    if (note)
        p->counter_note = strdup(note);
}

/* Rebuild the call-site string "function@frames" from {"function","callpath"}. */
static int site_of(struct reader *rd, json_t *site, struct strbuf *out)
{
    const char *fn = json_string_value(json_object_get(site, "function"));
    json_t *id = json_object_get(site, "callpath");
    json_int_t k = json_integer_value(id);
    if (!fn || !json_is_integer(id) || k < 0 || (size_t)k >= rd->paths.n) {
        bad(rd, "a call site has no function or an unknown callpath id");
        return -1;
    }
    out->len = 0;
    sb_puts(out, fn);
    sb_add(out, "@", 1);
    sb_puts(out, rd->paths.text[k]);
    return 0;
}

/* "sent" or "recv" of an MPI row whose count is read; where version 2 leaves it out, the
 * zero the row implies. */
static void read_bytes(struct reader *rd, json_t *o, struct red_stat *s,
                       const struct red_stat *count)
{
    if (!o && rd->version >= 2)
        zero_implied(s, count);
    else
        read_stat(rd, o, s);
}

/* "histogram" and "ranks_histogram" of a row whose count, time and call_max are read. */
static void read_rows_hists(struct reader *rd, json_t *o, struct prof_nums *n)
{
    read_hist(rd, json_object_get(o, "histogram"), &n->calls, n->count.sum, n->time.sum,
              n->call_max);
    read_hist(rd, json_object_get(o, "ranks_histogram"), &n->ranks, n->time.ranks,
              n->time.sum, n->time.max);
}

static void read_rows(struct reader *rd, struct profile *p, json_t *root, int kind)
{
    json_t *rows = json_object_get(root, kind == ROW_MPI ? "mpi" : "intervals");
    if (!json_is_array(rows)) {
        bad(rd, kind == ROW_MPI ? "no \"mpi\" array" : "no \"intervals\" array");
        return;
    }
    struct strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    size_t i;
    json_t *o;
    json_array_foreach(rows, i, o) {
        int ok = kind == ROW_MPI
                     ? site_of(rd, o, &a)
                     : (site_of(rd, json_object_get(o, "from"), &a) ||
                        site_of(rd, json_object_get(o, "to"), &b));
        if (ok != 0)
            break;
        struct prof_row *r = rowset_get(&p->rows, kind, a.data, kind == ROW_MPI ? NULL : b.data);
        if (!r) {
            bad(rd, "out of memory");
            break;
        }
        read_stat(rd, json_object_get(o, "count"), &r->n.count);
        read_stat(rd, json_object_get(o, "time"), &r->n.time);
        if (kind == ROW_MPI) {
            read_bytes(rd, json_object_get(o, "sent"), &r->n.sent, &r->n.count);
            read_bytes(rd, json_object_get(o, "recv"), &r->n.recv, &r->n.count);
            json_t *mem = json_object_get(o, "memory");
            if (mem) {
                read_stat(rd, json_object_get(mem, "allocs"), &r->n.mem_allocs);
                read_stat(rd, json_object_get(mem, "alloc_bytes"), &r->n.mem_alloc);
                read_stat(rd, json_object_get(mem, "freed_bytes"), &r->n.mem_freed);
                read_stat(rd, json_object_get(mem, "live_bytes"), &r->n.mem_live);
            }
        }
        read_counters(rd, p, json_object_get(o, "counters"), &r->n);
        r->n.sumsq = num_of(o, "sumsq");
        r->n.call_min = num_of(o, "call_min");
        r->n.call_max = num_of(o, "call_max");
        read_rows_hists(rd, o, &r->n);
    }
    sb_free(&a);
    sb_free(&b);
}

static void read_mpit(struct reader *rd, struct profile *p, json_t *root)
{
    json_t *o = json_object_get(root, "mpi_t"), *v;
    if (!o)
        return;
    p->cvars_total = (int)json_integer_value(json_object_get(o, "cvars_total"));
    p->pvars_total = (int)json_integer_value(json_object_get(o, "pvars_total"));
    p->events_total = (int)json_integer_value(json_object_get(o, "events_total"));
    const char *note = json_string_value(json_object_get(o, "note"));
    if (note)
        p->mpit_note = strdup(note);
    json_t *cvars = json_object_get(o, "cvars");
    size_t i, n = json_array_size(cvars);
    p->cvars = calloc(n + 1, sizeof *p->cvars);
    json_array_foreach(cvars, i, v) {
        if (!p->cvars)
            break;
        struct prof_cvar *c = &p->cvars[p->ncvars++];
        c->name = str_of(v, "name");
        c->value = str_of(v, "value");
        if (json_object_get(v, "written")) {
            c->written = str_of(v, "written");
            c->origin = str_of(v, "origin");
            c->before = str_of(v, "before");
        }
    }
    json_array_foreach(json_object_get(o, "pvars"), i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *cls = json_string_value(json_object_get(v, "class"));
        struct prof_row *r = name ? rowset_get(&p->rows, ROW_PVAR, name, cls ? cls : "") : NULL;
        if (r)
            read_stat(rd, json_object_get(v, "value"), &r->n.time);
    }
    struct strbuf site;
    sb_init(&site);
    json_array_foreach(json_object_get(o, "events"), i, v) {
        const char *name = json_string_value(json_object_get(v, "event"));
        if (!name || site_of(rd, v, &site) != 0)
            break;
        struct prof_row *r = rowset_get(&p->rows, ROW_EVENT, name, site.data);
        if (r)
            read_stat(rd, json_object_get(v, "count"), &r->n.count);
    }
    sb_free(&site);
}

/* Rebuild a region string (see region_json). */
static int region_of(struct reader *rd, json_t *o, struct strbuf *out,
                     struct strbuf *tmp)
{
    out->len = 0;
    json_t *unknown = json_object_get(o, "unknown"), *mpi = json_object_get(o, "mpi");
    if (unknown) {
        const char *u = json_string_value(unknown);
        sb_printf(out, "?%s", u && strcmp(u, "no hotspot region") ? u : "");
        return 0;
    }
    if (mpi)
        return site_of(rd, mpi, out);
    if (site_of(rd, json_object_get(o, "from"), out) ||
        site_of(rd, json_object_get(o, "to"), tmp))
        return -1;
    sb_printf(out, "\t%s", tmp->data);
    return 0;
}

/* "waits" and "wait_causes" (absent in profiles without wait states). */
static void read_waits(struct reader *rd, struct profile *p, json_t *root)
{
    json_t *o;
    struct strbuf a, b, t;
    sb_init(&a);
    sb_init(&b);
    sb_init(&t);
    size_t i;
    json_array_foreach(json_object_get(root, "waits"), i, o) {
        const char *pattern = json_string_value(json_object_get(o, "pattern"));
        struct prof_row *r;
        if (!pattern || site_of(rd, o, &a) ||
            !(r = rowset_get(&p->rows, ROW_WAIT, pattern, a.data)))
            break;
        read_stat(rd, json_object_get(o, "count"), &r->n.count);
        read_stat(rd, json_object_get(o, "time"), &r->n.time);
        read_stat(rd, json_object_get(o, "late"), &r->n.late);
        r->n.call_max = num_of(o, "call_max");
        read_rows_hists(rd, o, &r->n);
    }
    json_array_foreach(json_object_get(root, "wait_causes"), i, o) {
        const char *pattern = json_string_value(json_object_get(o, "pattern"));
        struct prof_row *r;
        if (!pattern || site_of(rd, json_object_get(o, "site"), &t))
            break;
        a.len = 0;
        sb_printf(&a, "%s\n%s", pattern, t.data);
        if (region_of(rd, json_object_get(o, "region"), &b, &t) ||
            !(r = rowset_get(&p->rows, ROW_CAUSE, a.data, b.data)))
            break;
        read_stat(rd, json_object_get(o, "cost"), &r->n.time);
        read_stat(rd, json_object_get(o, "count"), &r->n.count);
    }
    sb_free(&a);
    sb_free(&b);
    sb_free(&t);
}

static void read_run(struct reader *rd, struct profile *p, json_t *run)
{
    if (!json_is_object(run)) {
        bad(rd, "no \"run\" object");
        return;
    }
    p->program = str_of(run, "program");
    json_t *args = json_object_get(run, "args");
    p->argc = (int)json_array_size(args);
    p->argv = calloc((size_t)p->argc + 1, sizeof *p->argv);
    for (int i = 0; p->argv && i < p->argc; i++) {
        const char *s = json_string_value(json_array_get(args, (size_t)i));
        p->argv[i] = strdup(s ? s : "");
    }
    p->ranks = (int)json_integer_value(json_object_get(run, "ranks"));
    if (p->ranks <= 0)
        bad(rd, "run.ranks is missing or not positive");
    p->hosts = (int)json_integer_value(json_object_get(run, "hosts"));
    p->thread_level = (int)json_integer_value(json_object_get(run, "thread_level"));
    p->depth = (int)json_integer_value(json_object_get(run, "callpath_depth"));
    p->host = str_of(run, "host");
    p->mpi_library = str_of(run, "mpi_library");
    p->mpi_version = str_of(run, "mpi_version");
    p->tardy_version = str_of(run, "tardy_version");
    p->clock = str_of(run, "clock");
    p->start_time = str_of(run, "start_time");
    p->interface = str_of(run, "interface");
    const char *run_id = json_string_value(json_object_get(run, "run_id"));
    p->run_id = run_id ? strdup(run_id) : NULL; /* profiles before partial ones have none */
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(run, "params"), key, v) {
        struct prof_param *np = realloc(p->params, (size_t)(p->nparams + 1) * sizeof *np);
        if (!np)
            return;
        p->params = np;
        char num[64];
        if (json_is_number(v))
            snprintf(num, sizeof num, "%.17g", json_number_value(v));
        np[p->nparams].key = strdup(key);
        np[p->nparams].value = strdup(json_is_number(v) ? num : json_string_value(v)
                                                                      ? json_string_value(v)
                                                                      : "");
        p->nparams++;
    }
}

static void read_partial(struct reader *rd, struct profile *p, json_t *o)
{
    if (!o)
        return;
    json_t *stops = json_object_get(o, "stopped"), *s;
    size_t i;
    if (!json_is_object(o) || !json_is_array(stops)) {
        bad(rd, "\"partial\" is not an object with a \"stopped\" array");
        return;
    }
    p->partial = 1;
    json_array_foreach(stops, i, s) {
        json_t *rank = json_object_get(s, "rank");
        const char *reason = json_string_value(json_object_get(s, "reason"));
        if (!json_is_integer(rank) || json_integer_value(rank) < 0 ||
            json_integer_value(rank) >= p->ranks || !reason) {
            bad(rd, "partial.stopped has an entry without a rank in 0..run.ranks-1 or a reason");
            return;
        }
        struct prof_stop st = {
            .rank = (int)json_integer_value(rank),
            .reason = (char *)reason,
            .code = (int)json_integer_value(json_object_get(s, "code")),
            .signal = (char *)json_string_value(json_object_get(s, "signal")),
            .where = (char *)json_string_value(json_object_get(s, "where")),
            .time = (char *)json_string_value(json_object_get(s, "time")),
            .wall = json_number_value(json_object_get(s, "wall")),
        };
        if (profile_add_stop(p, &st) < 0) {
            bad(rd, "out of memory");
            return;
        }
    }
    profile_sort_stops(p);
}

static void read_predictions(struct profile *p, json_t *root)
{
    json_t *arr = json_object_get(root, "predictions"), *o;
    size_t i, n = json_array_size(arr);
    const char *note = json_string_value(json_object_get(root, "prediction_note"));
    if (note)
        p->prediction_note = strdup(note);
    p->predictions = n ? calloc(n, sizeof *p->predictions) : NULL;
    json_array_foreach(arr, i, o) {
        if (!p->predictions)
            break;
        struct prof_prediction *q = &p->predictions[p->npredictions++];
        q->target = str_of(o, "target");
        q->metric = str_of(o, "metric");
        q->family = str_of(o, "family");
        q->model = str_of(o, "model");
        q->value = num_of(o, "value");
        json_t *fe = json_object_get(o, "fit_error_pct"), *un = json_object_get(o, "uncertainty_pct");
        q->fit_error = fe ? json_number_value(fe) : NAN;
        q->uncertainty = un ? json_number_value(un) : NAN;
        json_t *lo = json_object_get(o, "low"), *hi = json_object_get(o, "high"),
               *cov = json_object_get(o, "coverage");
        q->low = lo && hi && cov ? json_number_value(lo) : NAN;
        q->high = lo && hi && cov ? json_number_value(hi) : NAN;
        q->coverage = lo && hi && cov ? json_number_value(cov) : NAN;
        q->extrapolated = json_is_true(json_object_get(o, "extrapolated"));
    }
}

static void read_ranks(struct reader *rd, struct profile *p, json_t *ranks)
{
    const char *key;
    json_t *v;
    if (!json_is_object(ranks)) {
        bad(rd, "no \"ranks\" object");
        return;
    }
    json_object_foreach(ranks, key, v) {
        if (!strcmp(key, "compute_histogram")) {
            p->rank_hist_lo = num_of(v, "lo");
            p->rank_hist_hi = num_of(v, "hi");
            for (int b = 0; b < RANK_HIST_BINS; b++)
                p->rank_hist[b] = (uint64_t)json_integer_value(
                    json_array_get(json_object_get(v, "counts"), (size_t)b));
            continue;
        }
        struct prof_row *r = rowset_get(&p->rows, ROW_RANK, key, NULL);
        if (r)
            read_stat(rd, v, &r->n.time);
    }
}

/* json_load_file reads a character at a time; a profile is read whole, then parsed. */
static json_t *load_file(const char *path, json_error_t *je)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return json_load_file(path, 0, je); /* for jansson's message */
    struct strbuf text;
    sb_init(&text);
    sb_read(&text, f); /* a short read: jansson names where the text ends */
    fclose(f);
    json_t *root = json_loadb(text.data ? text.data : "", text.len, 0, je);
    sb_free(&text);
    return root;
}

int profile_read(struct profile *p, const char *path, char *err, size_t errlen)
{
    struct reader rd = {.path = path, .err = err, .errlen = errlen};
    json_error_t je;
    json_t *root = load_file(path, &je);
    if (!root) {
        snprintf(err, errlen, "%s: not a JSON profile (line %d: %s)", path, je.line, je.text);
        return -1;
    }
    const char *schema = json_string_value(json_object_get(root, "schema")), *why = NULL;
    json_int_t version = json_integer_value(json_object_get(root, "version"));
    rd.version = (int)version;
    /* both versions: a run store keeps the profiles of earlier tardy releases */
    if (!schema || strcmp(schema, PROFILE_SCHEMA))
        bad(&rd, "not a tardy profile (no \"schema\": \"" PROFILE_SCHEMA "\")");
    else if (version < 1 || version > PROFILE_VERSION)
        bad(&rd, "profile version not supported by this tardy");
    else if (pj_paths_read(root, &rd.paths, &why) < 0)
        bad(&rd, why);
    if (!rd.failed)
        read_run(&rd, p, json_object_get(root, "run"));
    if (!rd.failed)
        read_partial(&rd, p, json_object_get(root, "partial"));
    if (!rd.failed)
        read_counter_meta(p, json_object_get(root, "counters"));
    if (!rd.failed)
        read_rows(&rd, p, root, ROW_MPI);
    if (!rd.failed)
        read_rows(&rd, p, root, ROW_INTERVAL);
    if (!rd.failed)
        read_ranks(&rd, p, json_object_get(root, "ranks"));
    if (!rd.failed)
        read_waits(&rd, p, root);
    if (!rd.failed)
        read_predictions(p, root);
    if (!rd.failed)
        read_mpit(&rd, p, root);
    pj_pathtext_free(&rd.paths);
    json_decref(root);
    if (!rd.failed) {
        free(p->path);
        p->path = strdup(path);
    }
    return rd.failed ? -1 : 0;
}
