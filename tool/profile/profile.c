/* The reduced profile: merging of per-rank statistics and the row set. */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void red_stat_one(struct red_stat *s, double v, int rank)
{
    s->sum = s->min = s->max = v;
    s->min_rank = s->max_rank = rank;
    s->ranks = 1;
    s->unused = 0;
}

void red_stat_merge(struct red_stat *into, const struct red_stat *from)
{
    if (!from->ranks)
        return;
    if (!into->ranks) {
        *into = *from;
        return;
    }
    into->sum += from->sum;
    /* Ties go to the lower rank, so the result does not depend on the merge order. */
    if (from->min < into->min || (from->min == into->min && from->min_rank < into->min_rank)) {
        into->min = from->min;
        into->min_rank = from->min_rank;
    }
    if (from->max > into->max || (from->max == into->max && from->max_rank < into->max_rank)) {
        into->max = from->max;
        into->max_rank = from->max_rank;
    }
    into->ranks += from->ranks;
}

void prof_nums_init(struct prof_nums *n)
{
    memset(n, 0, sizeof *n);
    n->call_min = INFINITY;
}

void prof_nums_merge(struct prof_nums *into, const struct prof_nums *from)
{
    red_stat_merge(&into->count, &from->count);
    red_stat_merge(&into->time, &from->time);
    red_stat_merge(&into->sent, &from->sent);
    red_stat_merge(&into->recv, &from->recv);
    red_stat_merge(&into->mem_allocs, &from->mem_allocs);
    red_stat_merge(&into->mem_alloc, &from->mem_alloc);
    red_stat_merge(&into->mem_freed, &from->mem_freed);
    red_stat_merge(&into->mem_live, &from->mem_live);
    red_stat_merge(&into->late, &from->late);
    if (from->call_min < into->call_min)
        into->call_min = from->call_min;
    if (from->call_max > into->call_max)
        into->call_max = from->call_max;
    into->sumsq += from->sumsq;
    hist_merge(&into->calls, &from->calls);
    hist_merge(&into->ranks, &from->ranks);
    for (int i = 0; i < PROF_COUNTERS; i++) {
        red_stat_merge(&into->ctr[i], &from->ctr[i]);
        for (int b = 0; b < CTR_RANK_BINS; b++)
            into->ctr_ranks[i][b] += from->ctr_ranks[i][b];
    }
}

/* A duration to the nanosecond of tardy's clock; unchanged from 10^6 s up, where 15
 * significant digits no longer reach the nanosecond. */
static double round_ns(double seconds)
{
    return fabs(seconds) < 1e6 ? nearbyint(seconds * 1e9) / 1e9 : seconds;
}

static void round_stat(struct red_stat *s)
{
    s->sum = round_ns(s->sum);
    s->min = round_ns(s->min);
    s->max = round_ns(s->max);
}

static void round_hist(struct hist *h)
{
    for (int b = 0; b < HIST_BINS; b++)
        h->sum[b] = round_ns(h->sum[b]);
}

void profile_round_ns(struct profile *p)
{
    for (size_t i = 0; i < p->rows.n; i++) {
        struct prof_row *r = &p->rows.rows[i];
        struct prof_nums *n = &r->n;
        if (r->kind != ROW_MPI && r->kind != ROW_INTERVAL && r->kind != ROW_WAIT &&
            r->kind != ROW_CAUSE)
            continue; /* per-rank metrics, MPI_T values: not all durations */
        round_stat(&n->time);
        round_stat(&n->late);
        if (isfinite(n->call_min))
            n->call_min = round_ns(n->call_min);
        n->call_max = round_ns(n->call_max);
        round_hist(&n->calls);
        round_hist(&n->ranks);
    }
}

int ctr_rank_bin(double v)
{
    if (!(v >= 1.0))
        return 0;
    int b = 1;
    for (double top = 4; v >= top && b < CTR_RANK_BINS - 1; top *= 4)
        b++;
    return b;
}

/* ---- row set ---------------------------------------------------------------------------- */

void rowset_init(struct rowset *rs)
{
    memset(rs, 0, sizeof *rs);
}

void rowset_free(struct rowset *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->rows[i].a);
        free(rs->rows[i].b);
    }
    free(rs->rows);
    free(rs->index);
    rowset_init(rs);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static size_t slot_of(int kind, const char *a, const char *b, size_t mask)
{
    uint64_t h = hash_str(hash_str(0xcbf29ce484222325ull ^ (uint64_t)kind, a), b);
    return (size_t)(h ^ (h >> 31)) & mask;
}

static int same_key(const struct prof_row *r, int kind, const char *a, const char *b)
{
    return r->kind == kind && !strcmp(r->a, a) && !strcmp(r->b ? r->b : "", b ? b : "");
}

static int grow_index(struct rowset *rs)
{
    size_t cap = rs->mask ? (rs->mask + 1) * 2 : 256;
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return -1;
    for (size_t i = 0; i < rs->n; i++) {
        const struct prof_row *r = &rs->rows[i];
        size_t s = slot_of(r->kind, r->a, r->b, cap - 1);
        while (idx[s])
            s = (s + 1) & (cap - 1);
        idx[s] = (uint32_t)i + 1;
    }
    free(rs->index);
    rs->index = idx;
    rs->mask = cap - 1;
    return 0;
}

struct prof_row *rowset_find(const struct rowset *rs, int kind, const char *a, const char *b)
{
    if (!rs->index)
        return NULL;
    for (size_t s = slot_of(kind, a, b, rs->mask);; s = (s + 1) & rs->mask) {
        uint32_t i = rs->index[s];
        if (!i)
            return NULL;
        if (same_key(&rs->rows[i - 1], kind, a, b))
            return &rs->rows[i - 1];
    }
}

struct prof_row *rowset_get(struct rowset *rs, int kind, const char *a, const char *b)
{
    struct prof_row *r = rowset_find(rs, kind, a, b);
    if (r)
        return r;
    if ((rs->n + 1) * 2 > (rs->mask ? rs->mask + 1 : 0) && grow_index(rs) < 0)
        return NULL;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        struct prof_row *rows = realloc(rs->rows, cap * sizeof *rows);
        if (!rows)
            return NULL;
        rs->rows = rows;
        rs->cap = cap;
    }
    r = &rs->rows[rs->n];
    r->kind = kind;
    r->a = strdup(a);
    r->b = b ? strdup(b) : NULL;
    if (!r->a || (b && !r->b)) {
        free(r->a);
        free(r->b);
        return NULL;
    }
    prof_nums_init(&r->n);
    size_t s = slot_of(kind, a, b, rs->mask);
    while (rs->index[s])
        s = (s + 1) & rs->mask;
    rs->index[s] = (uint32_t)++rs->n;
    return r;
}

/* ---- profile ------------------------------------------------------------------------------ */

void profile_init(struct profile *p)
{
    memset(p, 0, sizeof *p);
    rowset_init(&p->rows);
    p->cvars_total = p->pvars_total = p->events_total = -1;
}

void profile_free(struct profile *p)
{
    free(p->run_id);
    for (int i = 0; i < p->nstops; i++) {
        free(p->stops[i].reason);
        free(p->stops[i].signal);
        free(p->stops[i].where);
        free(p->stops[i].time);
    }
    free(p->stops);
    free(p->program);
    for (int i = 0; i < p->argc; i++)
        free(p->argv[i]);
    free(p->argv);
    free(p->mpi_library);
    free(p->mpi_version);
    free(p->tardy_version);
    free(p->clock);
    free(p->start_time);
    free(p->host);
    free(p->interface);
    for (int i = 0; i < p->nparams; i++) {
        free(p->params[i].key);
        free(p->params[i].value);
    }
    free(p->params);
    free(p->path);
    rowset_free(&p->rows);
    for (int i = 0; i < p->ncounters; i++)
        free(p->counters[i]);
    free(p->counter_note);
    for (int i = 0; i < p->ncvars; i++) {
        free(p->cvars[i].name);
        free(p->cvars[i].value);
        free(p->cvars[i].written);
        free(p->cvars[i].origin);
        free(p->cvars[i].before);
    }
    free(p->cvars);
    free(p->mpit_note);
    for (int i = 0; i < p->npredictions; i++) {
        struct prof_prediction *q = &p->predictions[i];
        free(q->target);
        free(q->metric);
        free(q->family);
        free(q->model);
    }
    free(p->predictions);
    free(p->prediction_note);
    profile_init(p);
}

int profile_set_params(struct profile *p, const char *text, char *err, size_t errlen)
{
    const char *s = text;
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        if (len == 0) {
            s = end ? end + 1 : s + len;
            continue;
        }
        if (!eq || eq == s) {
            snprintf(err, errlen, "'%.*s' is not key=value", (int)len, s);
            return -1;
        }
        struct prof_param *np = realloc(p->params, (size_t)(p->nparams + 1) * sizeof *np);
        if (!np)
            return -1;
        p->params = np;
        np[p->nparams].key = strndup(s, (size_t)(eq - s));
        np[p->nparams].value = strndup(eq + 1, len - (size_t)(eq - s) - 1);
        p->nparams++;
        s = end ? end + 1 : s + len;
    }
    return 0;
}

const struct red_stat *profile_rank_metric(const struct profile *p, const char *name)
{
    const struct prof_row *r = rowset_find(&p->rows, ROW_RANK, name, NULL);
    return r ? &r->n.time : NULL;
}

size_t site_function_len(const char *site)
{
    const char *at = strchr(site, '@');
    return at ? (size_t)(at - site) : strlen(site);
}

const char *site_frames(const char *site)
{
    const char *at = strchr(site, '@');
    return at ? at + 1 : "";
}

const char *frame_file_space(const char *frame, size_t len)
{
    const char *sp = NULL;
    for (size_t i = 0; i < len; i++)
        if (frame[i] == ' ')
            sp = frame + i;
    return sp;
}

int profile_merge_rows(struct profile *into, const struct profile *from)
{
    for (size_t i = 0; i < from->rows.n; i++) {
        const struct prof_row *r = &from->rows.rows[i];
        struct prof_row *t = rowset_get(&into->rows, r->kind, r->a, r->b);
        if (!t)
            return -1;
        prof_nums_merge(&t->n, &r->n);
    }
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

int profile_add_stop(struct profile *p, const struct prof_stop *s)
{
    struct prof_stop *n = realloc(p->stops, (size_t)(p->nstops + 1) * sizeof *n);
    if (!n)
        return -1;
    p->stops = n;
    n[p->nstops] = (struct prof_stop){s->rank, dup_or_null(s->reason), s->code,
                                      dup_or_null(s->signal), dup_or_null(s->where),
                                      dup_or_null(s->time), s->wall};
    p->nstops++;
    return 0;
}

static int by_rank(const void *a, const void *b)
{
    int x = ((const struct prof_stop *)a)->rank, y = ((const struct prof_stop *)b)->rank;
    return (x > y) - (x < y);
}

void profile_sort_stops(struct profile *p)
{
    if (p->nstops > 1)
        qsort(p->stops, (size_t)p->nstops, sizeof *p->stops, by_rank);
}

void profile_missing_ranks(const struct profile *p, struct strbuf *out)
{
    int next = 0; /* first rank not yet accounted for */
    size_t start = out->len;
    for (int i = 0; i <= p->nstops; i++) {
        int r = i < p->nstops ? p->stops[i].rank : p->ranks;
        if (r > next) {
            if (out->len > start)
                sb_puts(out, ",");
            if (r - 1 > next)
                sb_printf(out, "%d-%d", next, r - 1);
            else
                sb_printf(out, "%d", next);
        }
        if (r + 1 > next)
            next = r + 1;
    }
}
