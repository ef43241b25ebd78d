/* Wait states at finalize: this rank's wait and cause tables (all threads) become profile rows
 * keyed by call-site strings, ready for the tree reduction. A late rank's region arrives as a
 * rank-independent key; it is named here from this rank's own intervals and MPI call sites
 * (the same code on every rank gives the same key). */
#include "ws_collect.h"
#include "mpit/own/own.h"
#include "waits.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/report/report.h"
#include "tool/profile/profile.h"
#include "tool/base/base.h"

struct merged {
    struct table rows, costs, names;
    int failed;
};

/* key -> local call sites of a region (from = 0: an MPI call site) */
struct name_row {
    uint64_t key, unused;
    uint64_t from, to;
};

static void row_init(void *row)
{
    struct ws_row *r = row;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < WS_CULPRITS; i++)
        r->culprit[i] = -1;
}

static void cost_init(void *row)
{
    memset(row, 0, sizeof(struct ws_cost));
}

static void name_init(void *row)
{
    memset(row, 0, sizeof(struct name_row));
}

static void merge_thread(struct ws_thread *w, void *arg)
{
    struct merged *g = arg;
    for (uint32_t i = 0; i < w->rows.n; i++) {
        const struct ws_row *s = tab_row(&w->rows, i);
        struct ws_row *d = tab_get(&g->rows, s->k1, 0);
        if (!d) {
            g->failed = 1;
            continue;
        }
        d->count += s->count;
        d->time += s->time;
        if (s->tmax > d->tmax)
            d->tmax = s->tmax;
        hist_merge(&d->calls, &s->calls);
        for (int k = 0; k < WS_CULPRITS; k++) {
            int slot = -1;
            for (int j = 0; j < WS_CULPRITS && s->culprit[k] >= 0; j++)
                if (d->culprit[j] == s->culprit[k] || (slot < 0 && d->culprit[j] < 0))
                    slot = j;
            if (slot >= 0) {
                d->culprit[slot] = s->culprit[k];
                d->culprit_t[slot] += s->culprit_t[k];
            }
        }
    }
    for (uint32_t i = 0; i < w->costs.n; i++) {
        const struct ws_cost *s = tab_row(&w->costs, i);
        struct ws_cost *d = tab_get(&g->costs, s->k1, s->k2);
        if (!d) {
            g->failed = 1;
            continue;
        }
        d->count += s->count;
        d->cost += s->cost;
        if (s->k2)
            tab_get(&g->names, s->k2, 0);
    }
}

/* Name regions from this rank's own intervals and MPI call sites (every one is entered in
 * the table: bounded by the interval and MPI tables, and lookups stay hashed). */
static void name_from_thread(struct ev_thread *t, void *arg)
{
    struct merged *g = arg;
    for (uint32_t i = 0; i < t->intervals.n; i++) {
        const struct iv_row *v = tab_row(&t->intervals, i);
        if (v->from == TAB_OVERFLOW_KEY)
            continue;
        uint64_t k = ws_region_key(v->from, v->to);
        struct name_row *n = tab_get(&g->names, k, 0);
        if (n && !n->to) {
            n->from = v->from;
            n->to = v->to;
        }
    }
    for (uint32_t i = 0; i < t->mpi_rows.n; i++) {
        const struct mpi_row *m = tab_row(&t->mpi_rows, i);
        if (m->site == TAB_OVERFLOW_KEY)
            continue;
        struct name_row *n = tab_get(&g->names, ws_site_key(m->site) | WS_KEY_MPI, 0);
        if (n && !n->to)
            n->to = m->site;
    }
}

static void region_name(struct names *nm, struct table *names, uint64_t key, struct strbuf *out,
                        struct strbuf *tmp)
{
    out->len = 0;
    const struct name_row *n = key ? tab_get(names, key, 0) : NULL;
    if (!key || !n || !n->to) {
        if (key)
            sb_printf(out, "?%016" PRIx64, key);
        else
            sb_puts(out, "?");
        return;
    }
    if (n->from) {
        sb_puts(out, collect_site_name(nm, n->from, tmp));
        sb_puts(out, "\t");
    }
    sb_puts(out, collect_site_name(nm, n->to, tmp));
}

static void metric(struct rowset *rs, const char *name, double v, int rank, int *failed)
{
    struct prof_row *r = rowset_get(rs, ROW_RANK, name, NULL);
    if (!r) {
        *failed = 1;
        return;
    }
    red_stat_one(&r->n.time, v, rank);
    red_stat_one(&r->n.count, 1, rank);
    hist_add(&r->n.ranks, v);
}

static void emit_rows(struct merged *g, struct names *nm, struct rowset *rs, int rank,
                      double *total)
{
    struct strbuf a, b, tmp;
    sb_init(&a);
    sb_init(&b);
    sb_init(&tmp);
    for (uint32_t i = 0; i < g->rows.n; i++) {
        const struct ws_row *s = tab_row(&g->rows, i);
        int pat = WS_ROWKEY_PATTERN(s->k1);
        if (s->k1 == TAB_OVERFLOW_KEY || pat <= 0 || pat >= WS_NPATTERNS)
            continue;
        struct prof_row *r = rowset_get(rs, ROW_WAIT, ws_pattern_name[pat],
                                        collect_site_name(nm, WS_ROWKEY_SITE(s->k1), &tmp));
        if (!r) {
            g->failed = 1;
            continue;
        }
        red_stat_one(&r->n.count, (double)s->count, rank);
        red_stat_one(&r->n.time, s->time, rank);
        r->n.call_max = s->tmax;
        r->n.call_min = 0;
        hist_merge(&r->n.calls, &s->calls);
        hist_add(&r->n.ranks, s->time);
        int top = 0;
        for (int k = 1; k < WS_CULPRITS; k++)
            if (s->culprit[k] >= 0 && s->culprit_t[k] > s->culprit_t[top])
                top = k;
        if (s->culprit[top] >= 0)
            red_stat_one(&r->n.late, s->culprit_t[top], s->culprit[top]);
        *total += s->time;
    }
    for (uint32_t i = 0; i < g->costs.n; i++) {
        const struct ws_cost *s = tab_row(&g->costs, i);
        int pat = WS_ROWKEY_PATTERN(s->k1);
        if (s->k1 == TAB_OVERFLOW_KEY || pat <= 0 || pat >= WS_NPATTERNS)
            continue;
        a.len = 0;
        sb_printf(&a, "%s\n%s", ws_pattern_name[pat],
                  collect_site_name(nm, WS_ROWKEY_SITE(s->k1), &tmp));
        region_name(nm, &g->names, s->k2, &b, &tmp);
        struct prof_row *r = rowset_get(rs, ROW_CAUSE, a.data, b.data);
        if (!r) {
            g->failed = 1;
            continue;
        }
        r->n.count.sum += (double)s->count;
        r->n.time.sum += s->cost;
    }
    /* several keys may share a name ("?"): per-rank statistics once the sums are complete */
    for (size_t i = 0; i < rs->n; i++) {
        struct prof_row *r = &rs->rows[i];
        if (r->kind == ROW_CAUSE) {
            red_stat_one(&r->n.count, r->n.count.sum, rank);
            red_stat_one(&r->n.time, r->n.time.sum, rank);
            hist_add(&r->n.ranks, r->n.time.sum);
        }
    }
    sb_free(&a);
    sb_free(&b);
    sb_free(&tmp);
}

int ws_collect(struct rowset *rs, int rank)
{
    struct merged g = {.failed = 0};
    tab_init(&g.rows, sizeof(struct ws_row), row_init);
    tab_init(&g.costs, sizeof(struct ws_cost), cost_init);
    tab_init(&g.names, sizeof(struct name_row), name_init);
    ws_for_each_thread(merge_thread, &g);
    if (g.names.n)
        ev_for_each_thread(name_from_thread, &g);
    struct names *nm = collect_names_open();
    double total = 0;
    if (nm)
        emit_rows(&g, nm, rs, rank, &total);
    else
        g.failed = 1;
    collect_names_close(nm);
    double offset, uncertainty, drift, resyncs;
    ws_clock_report(&offset, &uncertainty, &drift, &resyncs);
    metric(rs, "wait_time", total, rank, &g.failed);
    metric(rs, "clock_violations", (double)atomic_load(&ws_violations), rank, &g.failed);
    metric(rs, "clock_offset", offset, rank, &g.failed);
    metric(rs, "clock_drift", drift, rank, &g.failed);
    metric(rs, "clock_uncertainty", uncertainty, rank, &g.failed);
    if (resyncs > 0)
        metric(rs, "clock_resyncs", resyncs, rank, &g.failed);
    static const char *const unmeasured[WS_UM_KINDS] = {
        "waits_unmeasured_comms", "waits_unmeasured_windows", "waits_unmeasured_requests",
        "waits_unmeasured_receives", "waits_unmeasured_answers"};
    for (int k = 0; k < WS_UM_KINDS; k++)
        if (atomic_load(&ws_unmeasured[k]))
            metric(rs, unmeasured[k], atomic_load(&ws_unmeasured[k]), rank, &g.failed);
    tab_free(&g.rows);
    tab_free(&g.costs);
    tab_free(&g.names);
    return g.failed ? -1 : 0;
}

/* ---- names of regions only other ranks ran ---- */

#define MAX_UNNAMED 256
#define ROW_NAME 100   /* internal: a = "?key", b = region name */

/* Rank 0's distinct unnamed regions ("?key" causes), at most MAX_UNNAMED. */
static int unnamed_keys(const struct rowset *rs, uint64_t keys[MAX_UNNAMED])
{
    int n = 0;
    for (size_t i = 0; i < rs->n && n < MAX_UNNAMED; i++) {
        const struct prof_row *r = &rs->rows[i];
        uint64_t k;
        if (r->kind != ROW_CAUSE || !r->b || r->b[0] != '?' || sscanf(r->b + 1, "%" SCNx64, &k) != 1)
            continue;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++)
            seen = keys[j] == k;
        if (!seen)
            keys[n++] = k;
    }
    return n;
}

/* This rank's names for keys, as ROW_NAME rows. */
static void name_keys(struct rowset *out, const uint64_t *keys, int n)
{
    struct merged g = {.failed = 0};
    tab_init(&g.names, sizeof(struct name_row), name_init);
    ev_for_each_thread(name_from_thread, &g);
    struct names *nm = collect_names_open();
    struct strbuf a, b, tmp;
    sb_init(&a);
    sb_init(&b);
    sb_init(&tmp);
    for (int i = 0; nm && i < n; i++) {
        region_name(nm, &g.names, keys[i], &b, &tmp);
        if (b.data && b.data[0] != '?') {
            a.len = 0;
            sb_printf(&a, "?%016" PRIx64, keys[i]);
            rowset_get(out, ROW_NAME, a.data, b.data);
        }
    }
    collect_names_close(nm);
    sb_free(&a);
    sb_free(&b);
    sb_free(&tmp);
    tab_free(&g.names);
}

/* Rename rank 0's "?key" causes with the names found on any rank. */
static void rename_causes(struct rowset *rs, const struct rowset *names)
{
    size_t n = rs->n;
    for (size_t i = 0; i < n; i++) {
        if (rs->rows[i].kind != ROW_CAUSE || !rs->rows[i].b || rs->rows[i].b[0] != '?')
            continue;
        const struct prof_row *name = NULL;
        for (size_t j = 0; j < names->n && !name; j++)
            if (!strcmp(names->rows[j].a, rs->rows[i].b))
                name = &names->rows[j];
        if (!name)
            continue;
        struct prof_nums nums = rs->rows[i].n;
        char *a = strdup(rs->rows[i].a);
        struct prof_row *to = a ? rowset_get(rs, ROW_CAUSE, a, name->b) : NULL;
        if (to) {
            prof_nums_merge(&to->n, &nums);
            rs->rows[i].kind = 0; /* merged into the named row; writers skip kind 0 */
        }
        free(a);
    }
}

void ws_resolve(struct rowset *rs, MPI_Comm comm)
{
    if (!ws_used_in_run())
        return;
    int rank;
    /* the count and the keys in one broadcast (2 KB): one collective, not two */
    uint64_t msg[1 + MAX_UNNAMED] = {0}, *keys = msg + 1;
    own_Comm_rank(comm, &rank);
    if (rank == 0)
        msg[0] = (uint64_t)unnamed_keys(rs, keys);
    yw_bcast(msg, 1 + MAX_UNNAMED, MPI_UINT64_T, 0, comm);
    int n = (int)msg[0];
    if (!n)
        return;
    struct rowset names;
    rowset_init(&names);
    name_keys(&names, keys, n);
    red_tree(&names, comm);
    if (rank == 0)
        rename_causes(rs, &names);
    rowset_free(&names);
}
