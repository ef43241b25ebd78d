/* JSON profile, written with jansson (read with cJSON: profile_read.c). */
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

/* ---- strings: UTF-8 however the bytes came ---------------------------------------------- */

/* s with each byte that starts no UTF-8 character replaced by U+FFFD, as a new string (NULL
 * when memory is short). */
static char *utf8_fixed(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    struct strbuf out;
    sb_init(&out);
    for (size_t i = 0, k; i < n; i += k) {
        if ((k = utf8_char(u + i, n - i))) {
            sb_add(&out, s + i, k);
        } else {
            sb_puts(&out, "\xef\xbf\xbd"); /* U+FFFD */
            k = 1;
        }
    }
    sb_add(&out, "", 0);
    if (out.failed) {
        sb_free(&out);
        return NULL;
    }
    return out.data;
}

/* s as a JSON string, never lost: jansson refuses bytes that are not UTF-8 (json_string is
 * NULL, and json_pack or json_object_set_new drops the member, or the whole object, without
 * a word), which a program's arguments, a file name, a symbol or a --at target may hold.
 * Those bytes become U+FFFD, as text decoders replace them, so the document stays valid.
 * NULL when s is, or memory is short. */
static json_t *text_json(const char *s)
{
    json_t *j = json_string(s);
    if (j || !s)
        return j;
    char *fixed = utf8_fixed(s);
    j = fixed ? json_string(fixed) : NULL;
    free(fixed);
    return j;
}

/* o[key] = value (its reference taken), key made UTF-8 as text_json makes a string: a
 * parameter, counter or metric name given by the user. */
static void set_named(json_t *o, const char *key, json_t *value)
{
    char *fixed = utf8_valid(key) ? NULL : utf8_fixed(key);
    json_object_set_new(o, fixed ? fixed : key, value);
    free(fixed);
}

/* ---- writing ----------------------------------------------------------------------------- */

/* [sum, min, min_rank, max, max_rank, ranks]; the mean is sum / run.ranks. */
static json_t *stat_json(const struct red_stat *s)
{
    if (!s->ranks)
        return json_pack("[i,i,i,i,i,i]", 0, 0, -1, 0, -1, 0);
    return json_pack("[f,f,i,f,i,i]", s->sum, s->min, s->min_rank, s->max, s->max_rank,
                     (int)s->ranks);
}

void pj_hist_implied(struct hist *h, double n, double sum, double max)
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
    pj_hist_implied(&implied, n, sum, max);
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

void pj_zero_implied(struct red_stat *s, const struct red_stat *count)
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
    pj_zero_implied(&zero, count);
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
        set_named(o, p->counters[k], c);
    }
    return o;
}

/* "source": where the columns come from, PAPI and/or MPI_T ("mpi_t:NAME" columns). */
static json_t *counter_meta_json(const struct profile *p)
{
    json_t *names = json_array();
    int pvars = 0;
    for (int k = 0; k < p->ncounters; k++) {
        json_array_append_new(names, text_json(p->counters[k]));
        pvars += !strncmp(p->counters[k], "mpi_t:", 6);
    }
    const char *source = !pvars ? "PAPI" : pvars == p->ncounters ? "MPI_T" : "PAPI,MPI_T";
    json_t *o = json_pack("{s:s,s:o,s:b}", "source", source, "events", names, "multiplex",
                          p->counter_multiplex);
    if (p->counter_note)
        json_object_set_new(o, "note", text_json(p->counter_note));
    return o;
}

static json_t *params_json(const struct profile *p)
{
    json_t *o = json_object();
    for (int i = 0; i < p->nparams; i++) {
        const char *v = p->params[i].value;
        double x;
        if (decimal_number(v, &x))
            set_named(o, p->params[i].key, json_real(x));
        else
            set_named(o, p->params[i].key, text_json(v));
    }
    return o;
}

static json_t *run_json_base(const struct profile *p)
{
    json_t *args = json_array();
    for (int i = 0; i < p->argc; i++)
        json_array_append_new(args, text_json(p->argv[i]));
    return json_pack("{s:o,s:o,s:i,s:i,s:o,s:i,s:o,s:o,s:o,s:o,s:o,s:i,s:o}",
                     "program", text_json(p->program ? p->program : ""), "args", args,
                     "ranks", p->ranks, "hosts", p->hosts, "host",
                     text_json(p->host ? p->host : ""), "thread_level", p->thread_level,
                     "mpi_library", text_json(p->mpi_library ? p->mpi_library : ""),
                     "mpi_version", text_json(p->mpi_version ? p->mpi_version : ""),
                     "tardy_version", text_json(p->tardy_version ? p->tardy_version : ""),
                     "clock", text_json(p->clock ? p->clock : ""), "start_time",
                     text_json(p->start_time ? p->start_time : ""), "callpath_depth", p->depth,
                     "params", params_json(p));
}

json_t *pj_run(const struct profile *p)
{
    json_t *o = run_json_base(p);
    json_object_set_new(o, "interface", text_json(p->interface ? p->interface : "PMPI"));
    if (p->run_id)
        json_object_set_new(o, "run_id", text_json(p->run_id));
    return o;
}

static json_t *partial_json(const struct profile *p)
{
    json_t *stops = json_array();
    for (int i = 0; i < p->nstops; i++) {
        const struct prof_stop *s = &p->stops[i];
        json_t *o = json_pack("{s:i,s:o,s:i,s:o,s:f}", "rank", s->rank, "reason",
                              text_json(s->reason ? s->reason : "?"), "code", s->code, "time",
                              text_json(s->time ? s->time : ""), "wall", s->wall);
        if (s->signal)
            json_object_set_new(o, "signal", text_json(s->signal));
        if (s->where)
            json_object_set_new(o, "where", text_json(s->where));
        json_array_append_new(stops, o);
    }
    struct strbuf miss;
    sb_init(&miss);
    profile_missing_ranks(p, &miss);
    json_t *o = json_pack("{s:i,s:o,s:o}", "ranks_present", p->nstops, "stopped", stops,
                          "missing", text_json(miss.data ? miss.data : ""));
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
        json_t *o = json_pack("{s:o,s:o}", "name", text_json(c->name), "value",
                              text_json(c->value));
        if (c->written) {
            json_object_set_new(o, "written", text_json(c->written));
            json_object_set_new(o, "origin", text_json(c->origin ? c->origin : ""));
            json_object_set_new(o, "before", text_json(c->before ? c->before : ""));
        }
        json_array_append_new(cvars, o);
    }
    for (size_t i = 0; i < p->rows.n; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        if (r->kind == ROW_PVAR)
            json_array_append_new(pvars, json_pack("{s:o,s:o,s:o}", "name", text_json(r->a),
                                                   "class", text_json(r->b ? r->b : ""),
                                                   "value", stat_json(&r->n.time)));
        if (r->kind == ROW_EVENT) {
            json_t *o = json_pack("{s:o}", "event", text_json(r->a));
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
        json_object_set_new(o, "note", text_json(p->mpit_note));
    return o;
}

/* A region of a late rank: "from\tto" (compute interval), "site" (MPI call), "?…" (none). */
static json_t *region_json(struct pj_paths *t, const char *b)
{
    if (b[0] == '?')
        return json_pack("{s:o}", "unknown", text_json(b[1] ? b + 1 : "no hotspot region"));
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
        json_t *o = json_pack("{s:o}", "pattern", text_json(r->a));
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
        json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o}", "pattern",
                              text_json(pattern ? pattern : ""), "site", pj_site(t, nl + 1),
                              "region", region_json(t, r->b ? r->b : "?"), "cost",
                              stat_json(&r->n.time), "count", stat_json(&r->n.count));
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
            set_named(o, r->a, stat_json(&r->n.time));
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
        json_t *o = json_pack("{s:o,s:o,s:f,s:o,s:o,s:b}", "target", text_json(q->target),
                              "metric", text_json(q->metric), "value", q->value, "family",
                              text_json(q->family), "model", text_json(q->model),
                              "extrapolated", q->extrapolated);
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
            json_object_set_new(root, "prediction_note", text_json(p->prediction_note));
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
    json_object_set_new(source, src->kind ? src->kind : "store",
                        text_json(src->path ? src->path : ""));
    json_object_set_new(source, "runs", json_integer(src->runs));
    json_object_set_new(source, "program", text_json(src->program ? src->program : ""));
    json_object_set_new(root, "source", source);
    json_object_set_new(root, "policy", text_json(src->policy ? src->policy : ""));
    json_object_set_new(root, "targets", text_json(src->targets ? src->targets : ""));
    json_object_set_new(root, "predictions", predictions_json(p));
    if (p->prediction_note)
        json_object_set_new(root, "note", text_json(p->prediction_note));
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
