/* Per-thread tables → one rank's rows. Threads of a rank are summed first; only then do the
 * sums become per-rank statistics (red_stat with one rank). */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/core/core.h"
#include "tool/counters/counters.h"
#include "tool/memory/memory.h"
#include "mpit/mpi_t/mpi_t.h"
#include "tool/base/base.h"

struct names {
    struct symbolizer *sym;
    int sym_kept;      /* sym is the kept one (snapshots): not closed with these names */
    char **path;       /* frames string per call-path id, made on first use */
    uint32_t npaths;
    struct strbuf site;
};

/* How many of frames pcs[0..n) are the application's: the C library's process and thread
 * start-up (__libc_start_call_main, start_thread, clone3, ...) and the program's _start at the
 * outer end are not. Decided from module names and the program's own symbols, never from the
 * C library's symbol table: with libc6-dbg installed that is a large compressed debug file,
 * and reading it cost 0.2 s per rank at finalize. */
static int application_frames(struct symbolizer *sym, const uintptr_t *pcs, int n)
{
    if (n > 1 && !sym_in_c_library(sym, pcs[n - 1])) {
        const char *fn = sym_function(sym, pcs[n - 1]);
        if (fn && !strcmp(fn, "_start"))
            n--;
    }
    while (n > 1 && sym_in_c_library(sym, pcs[n - 1]))
        n--;
    return n;
}

/* "function file:line;..." of the application's frames among pcs[0..n) (caller frees). */
static char *frames_text(struct symbolizer *sym, const uintptr_t *pcs, int n)
{
    struct strbuf sb;
    sb_init(&sb);
    n = application_frames(sym, pcs, n);
    for (int i = 0; i < n; i++) {
        if (i)
            sb_puts(&sb, ";");
        sym_frame(sym, pcs[i], &sb);
    }
    return sb.data ? sb.data : strdup("");
}

static const char *path_of(struct names *nm, uint32_t cp)
{
    if (cp >= nm->npaths)
        return cp == CS_OVERFLOW ? "(other call paths)" : "";
    if (cp == CS_OVERFLOW)
        return "(other call paths)";
    if (!nm->path[cp]) {
        const uintptr_t *pcs;
        int n = cs_frames(cp, &pcs);
        nm->path[cp] = frames_text(nm->sym, pcs, n);
    }
    return nm->path[cp] ? nm->path[cp] : "";
}

/* "MPI_Send@frames" for a site; valid until the next call. */
static const char *site_name(struct names *nm, uint64_t site, struct strbuf *into)
{
    into->len = 0;
    if (site == TAB_OVERFLOW_KEY) {
        sb_puts(into, "(other)@");
        return into->data;
    }
    unsigned fn = SITE_FN(site);
    sb_puts(into, fn < TARDY_FN_COUNT ? tardy_fn_name[fn] : "?");
    sb_puts(into, "@");
    sb_puts(into, path_of(nm, SITE_CP(site)));
    return into->data ? into->data : "";
}

struct gather {
    struct names *nm;
    struct rowset *rs;
    struct strbuf a, b;
    double compute, mpi;
    double ctr_total[PROF_COUNTERS]; /* this rank's counter totals, all rows */
    struct table peers;   /* all threads' partners */
    int failed;
};

/* Accumulate one thread's tables; numbers are raw sums until finish_rows(). */
static void add_thread(struct ev_thread *t, void *arg)
{
    struct gather *g = arg;
    g->compute += t->compute;
    g->mpi += t->mpi;
    for (uint32_t i = 0; i < t->mpi_rows.n; i++) {
        const struct mpi_row *m = tab_row(&t->mpi_rows, i);
        struct prof_row *r = rowset_get(g->rs, ROW_MPI, site_name(g->nm, m->site, &g->a), NULL);
        if (!r) {
            g->failed = 1;
            continue;
        }
        r->n.count.sum += (double)m->count;
        r->n.time.sum += m->time;
        r->n.sent.sum += (double)m->sent;
        r->n.recv.sum += (double)m->recv;
        if (m->tmin < r->n.call_min)
            r->n.call_min = m->tmin;
        if (m->tmax > r->n.call_max)
            r->n.call_max = m->tmax;
        hist_merge(&r->n.calls, &m->calls);
    }
    for (uint32_t i = 0; i < t->intervals.n; i++) {
        const struct iv_row *v = tab_row(&t->intervals, i);
        struct prof_row *r = rowset_get(g->rs, ROW_INTERVAL, site_name(g->nm, v->from, &g->a),
                                        site_name(g->nm, v->to, &g->b));
        if (!r) {
            g->failed = 1;
            continue;
        }
        r->n.count.sum += (double)v->count;
        r->n.time.sum += v->time;
        r->n.sumsq += v->sumsq;
        if (v->tmin < r->n.call_min)
            r->n.call_min = v->tmin;
        if (v->tmax > r->n.call_max)
            r->n.call_max = v->tmax;
        hist_merge(&r->n.calls, &v->calls);
    }
    for (uint32_t i = 0; i < t->peers.n; i++) {
        const struct peer_row *p = tab_row(&t->peers, i);
        struct peer_row *q = tab_get(&g->peers, p->rank, 0);
        if (!q) {
            g->failed = 1;
            continue;
        }
        q->sent_msgs += p->sent_msgs;
        q->recv_msgs += p->recv_msgs;
        q->sent_bytes += p->sent_bytes;
        q->recv_bytes += p->recv_bytes;
    }
}

/* Counter deltas of one thread's table into the rows of kind (raw sums). */
static void add_counters(struct gather *g, const struct table *t, int kind)
{
    int nc = ctr_count();
    for (uint32_t i = 0; i < t->n; i++) {
        const struct ctr_row *c = tab_row(t, i);
        const char *a = site_name(g->nm, c->k1, &g->a);
        const char *b = kind == ROW_INTERVAL ? site_name(g->nm, c->k2, &g->b) : NULL;
        struct prof_row *r = rowset_get(g->rs, kind, a, b);
        if (!r) {
            g->failed = 1;
            continue;
        }
        for (int k = 0; k < nc; k++) {
            r->n.ctr[k].sum += (double)c->v[k];
            g->ctr_total[k] += (double)c->v[k];
        }
    }
}

static void add_thread_counters(struct ev_thread *t, void *arg)
{
    if (t->ctr) {
        add_counters(arg, &t->ctr->mpi, ROW_MPI);
        add_counters(arg, &t->ctr->intervals, ROW_INTERVAL);
    }
}

/* Memory the MPI library allocated, per site, as raw sums on the MPI rows. */
static void add_memory(struct gather *g)
{
    struct mem_site *s;
    int n = mem_snapshot(&s);
    if (n < 0)
        g->failed = 1;
    for (int i = 0; i < n; i++) {
        uint64_t site = s[i].site == UINT64_MAX ? TAB_OVERFLOW_KEY : s[i].site;
        struct prof_row *r = rowset_get(g->rs, ROW_MPI, site_name(g->nm, site, &g->a), NULL);
        if (!r) {
            g->failed = 1;
            continue;
        }
        r->n.mem_allocs.sum += (double)s[i].allocs;
        r->n.mem_alloc.sum += (double)s[i].alloc_bytes;
        r->n.mem_freed.sum += (double)s[i].freed_bytes;
        r->n.mem_live.sum += (double)s[i].live_bytes;
    }
    free(s);
}

/* Raw sums → statistics of one rank. Memory statistics only where memory was allocated, so
 * that "ranks" says how many ranks' MPI library allocated at that site. */
static void finish_rows(struct rowset *rs, int rank)
{
    int nc = ctr_count();
    for (size_t i = 0; i < rs->n; i++) {
        struct prof_nums *n = &rs->rows[i].n;
        red_stat_one(&n->count, n->count.sum, rank);
        red_stat_one(&n->time, n->time.sum, rank);
        red_stat_one(&n->sent, n->sent.sum, rank);
        red_stat_one(&n->recv, n->recv.sum, rank);
        if (n->mem_allocs.sum > 0) {
            red_stat_one(&n->mem_allocs, n->mem_allocs.sum, rank);
            red_stat_one(&n->mem_alloc, n->mem_alloc.sum, rank);
            red_stat_one(&n->mem_freed, n->mem_freed.sum, rank);
            red_stat_one(&n->mem_live, n->mem_live.sum, rank);
        }
        memset(&n->ranks, 0, sizeof n->ranks);
        hist_add(&n->ranks, n->time.sum);
        for (int k = 0; k < nc && rs->rows[i].kind != ROW_RANK; k++) {
            red_stat_one(&n->ctr[k], n->ctr[k].sum, rank);
            n->ctr_ranks[k][ctr_rank_bin(n->ctr[k].sum)] = 1;
        }
    }
}

struct event_ctx {
    struct gather *g;
    int rank;
};

static void event_row(const char *event, uint64_t site, uint64_t n, void *arg)
{
    struct event_ctx *e = arg;
    struct gather *g = e->g;
    const char *b = site ? site_name(g->nm, site, &g->a) : "(outside MPI calls)@";
    struct prof_row *r = rowset_get(g->rs, ROW_EVENT, event, b);
    if (!r) {
        g->failed = 1;
        return;
    }
    red_stat_one(&r->n.count, (double)n, e->rank);
}

int collect_rank_metric(struct rowset *rs, const char *name, double v, int rank)
{
    struct prof_row *r = rowset_get(rs, ROW_RANK, name, NULL);
    if (!r)
        return -1;
    red_stat_one(&r->n.time, v, rank);
    red_stat_one(&r->n.count, 1, rank);
    hist_add(&r->n.ranks, v);
    return 0;
}

static void rank_metric(struct gather *g, const char *name, double v, int rank)
{
    if (collect_rank_metric(g->rs, name, v, rank) < 0)
        g->failed = 1;
}

static void peer_metrics(struct gather *g, int rank)
{
    double sent = 0, recv = 0, msgs = 0, max_peer = 0;
    for (uint32_t i = 0; i < g->peers.n; i++) {
        const struct peer_row *p = tab_row(&g->peers, i);
        sent += (double)p->sent_bytes;
        recv += (double)p->recv_bytes;
        msgs += (double)(p->sent_msgs + p->recv_msgs);
        double both = (double)(p->sent_bytes + p->recv_bytes);
        if (both > max_peer)
            max_peer = both;
    }
    rank_metric(g, "partners", g->peers.n, rank);
    rank_metric(g, "p2p_sent_bytes", sent, rank);
    rank_metric(g, "p2p_recv_bytes", recv, rank);
    rank_metric(g, "p2p_messages", msgs, rank);
    rank_metric(g, "max_bytes_one_partner", max_peer, rank);
}

/* The names kept between collections (snapshots): the symbolizer and every call path's
 * string, grown as new paths appear. */
static struct names kept;
static int keeping;

void collect_keep_names(int on)
{
    keeping = on;
    if (on)
        return;
    for (uint32_t i = 0; kept.path && i < kept.npaths; i++)
        free(kept.path[i]);
    free(kept.path);
    sym_close(kept.sym);
    memset(&kept, 0, sizeof kept);
}

static int kept_names(void)
{
    if (!kept.path)
        kept.sym = sym_open();
    uint32_t n = cs_count();
    if (!kept.path || n > kept.npaths) {
        char **np = realloc(kept.path, (n ? n : 1) * sizeof *np);
        if (!np)
            return -1;
        for (uint32_t i = kept.path ? kept.npaths : 0; i < n; i++)
            np[i] = NULL;
        if (!kept.path && !n)
            np[0] = NULL;
        kept.path = np;
        kept.npaths = n;
    }
    return 0;
}

int collect_rank(struct rowset *rs, int rank, double wall, int memory)
{
    struct names own = {0}, *nmp = &own;
    if (keeping && kept_names() == 0) {
        nmp = &kept;
    } else {
        own.sym = sym_open();
        own.npaths = cs_count();
        own.path = calloc(own.npaths ? own.npaths : 1, sizeof *own.path);
    }
    struct names nm = *nmp;
    struct gather g = {.nm = &nm, .rs = rs};
    sb_init(&g.a);
    sb_init(&g.b);
    tab_init(&g.peers, sizeof(struct peer_row), peer_row_init);
    if (!nm.path) {
        g.failed = 1;
        goto out;
    }
    ev_for_each_thread(add_thread, &g);
    ev_for_each_thread(add_thread_counters, &g);
    if (memory)
        add_memory(&g);
    finish_rows(rs, rank);
    rank_metric(&g, "compute", g.compute, rank);
    rank_metric(&g, "mpi", g.mpi, rank);
    rank_metric(&g, "wall", wall, rank);
    peer_metrics(&g, rank);
    mt_pvar_rows(rs, rank);
    mt_for_each_event(event_row, &(struct event_ctx){&g, rank});
    for (int k = 0, nc = ctr_count(); k < nc; k++) {
        char name[300];
        snprintf(name, sizeof name, "counter:%s", ctr_name(k));
        rank_metric(&g, name, g.ctr_total[k], rank);
    }
    if (memory) {
        rank_metric(&g, "mpi_memory_high_water", (double)mem_high_water(), rank);
        rank_metric(&g, "mpi_memory_live", (double)mem_live_total(), rank);
        rank_metric(&g, "mpi_memory_untracked_allocs", (double)mem_untracked(), rank);
    }
out:
    if (nmp == &kept) {
        kept = nm; /* the strings made this time stay */
    } else {
        for (uint32_t i = 0; nm.path && i < nm.npaths; i++)
            free(nm.path[i]);
        free(nm.path);
        sym_close(nm.sym);
    }
    sb_free(&g.a);
    sb_free(&g.b);
    tab_free(&g.peers);
    return g.failed ? -1 : 0;
}

/* ---- call-site names for other modules (wait states) ---- */

/* The kept symbolizer while snapshots keep one (its modules are read already), else a new
 * one; *kept_one: which. */
static struct symbolizer *sym_now(int *kept_one)
{
    *kept_one = keeping && kept.path;
    return *kept_one ? kept.sym : sym_open();
}

static void sym_done(struct symbolizer *sym, int kept_one)
{
    if (!kept_one)
        sym_close(sym);
}

struct names *collect_names_open(void)
{
    struct names *nm = calloc(1, sizeof *nm);
    if (!nm)
        return NULL;
    nm->sym = sym_now(&nm->sym_kept);
    nm->npaths = cs_count();
    nm->path = calloc(nm->npaths ? nm->npaths : 1, sizeof *nm->path);
    if (!nm->path) {
        sym_done(nm->sym, nm->sym_kept);
        free(nm);
        return NULL;
    }
    return nm;
}

const char *collect_site_name(struct names *nm, uint64_t site, struct strbuf *into)
{
    return site_name(nm, site, into);
}

void collect_names_close(struct names *nm)
{
    if (!nm)
        return;
    for (uint32_t i = 0; i < nm->npaths; i++)
        free(nm->path[i]);
    free(nm->path);
    sym_done(nm->sym, nm->sym_kept);
    free(nm);
}

char *collect_path_text(const uintptr_t *pcs, int n)
{
    int kept_one;
    struct symbolizer *sym = sym_now(&kept_one);
    char *text = frames_text(sym, pcs, n);
    sym_done(sym, kept_one);
    return text;
}
