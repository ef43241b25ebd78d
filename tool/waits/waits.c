/* Wait states, the per-thread core: the ledger of regions since the last synchronisation
 * point, the recording of waits with their root causes (H-CWP-DM, DESIGN.md 3.6), quiet calls,
 * communicators, and start and finish. Transport is in p2p.c, complete.c, coll.c. */
#include "waits.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"
#include "mpit/own/own.h"
#include "ws.h"

int ws_on;
static int ws_used;    /* wait states were on in this run */
atomic_ullong ws_violations;
int ws_hotspot_permille = 10;
int ws_sample = 1;

_Thread_local struct ws_thread *ws_self;
static struct ws_thread *threads;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;

static void ws_row_init(void *row)
{
    struct ws_row *r = row;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < WS_CULPRITS; i++)
        r->culprit[i] = -1;
}

static void ws_cost_init(void *row)
{
    memset(row, 0, sizeof(struct ws_cost));
}

struct ws_thread *ws_me(void)
{
    if (__builtin_expect(ws_self != NULL, 1))
        return ws_self;
    struct ws_thread *w = calloc(1, sizeof *w);
    if (!w) {
        static atomic_int warned;
        if (!atomic_exchange(&warned, 1))
            tardy_warn("out of memory for wait-state tables; a thread's waits are lost");
        return NULL;
    }
    tab_init(&w->rows, sizeof(struct ws_row), ws_row_init);
    tab_init(&w->costs, sizeof(struct ws_cost), ws_cost_init);
    for (int i = 0; i < WS_RING; i++)
        w->ring_req[i] = MPI_REQUEST_NULL;
    w->held_max = -HUGE_VAL;
    pthread_mutex_lock(&threads_lock);
    w->next = threads;
    threads = w;
    pthread_mutex_unlock(&threads_lock);
    return ws_self = w;
}

void ws_for_each_thread(void (*fn)(struct ws_thread *w, void *arg), void *arg)
{
    pthread_mutex_lock(&threads_lock);
    for (struct ws_thread *w = threads; w; w = w->next)
        fn(w, arg);
    pthread_mutex_unlock(&threads_lock);
}

/* ---- the ledger ----------------------------------------------------------------------- */

/* Add t seconds to region key; a full ledger keeps its largest regions. */
static void led_add(struct ws_thread *w, uint64_t key, double t)
{
    w->led_total += t;
    int min = 0;
    for (int i = 0; i < w->nled; i++) {
        if (w->led[i].key == key) {
            w->led[i].t += t;
            return;
        }
        if (w->led[i].t < w->led[min].t)
            min = i;
    }
    if (w->nled < WS_K)
        w->led[w->nled++] = (struct ws_reg){key, t};
    else if (t > w->led[min].t)
        w->led[min] = (struct ws_reg){key, t};
}

/* The key of a call site, from the thread's small cache of recent sites. */
static uint64_t site_key(struct ws_thread *w, uint64_t site)
{
    struct ws_keyslot *k = &w->keys[(site * 0x9E3779B97F4A7C15ull) >> 60];
    if (k->site != site) {
        k->site = site;
        k->key = ws_site_key(site);
    }
    return k->key;
}

void ws_fold(struct ev_call *c)
{
    struct ev_thread *t = c->th;
    struct ws_thread *w = ws_me();
    if (!w)
        return;
    uint64_t site = SITE(c->fn, c->cp), prev = w->prev_site;
    w->prev_enter_before = w->prev_enter;
    w->prev_site = site;
    w->prev_enter = c->t_enter;
    if (!t->last_site || t->epoch != atomic_load_explicit(&ev_epoch, memory_order_relaxed))
        return;
    uint64_t key = site_key(w, site), last_key = site_key(w, t->last_site);
    /* the previous MPI call (when it was no synchronisation point), then the interval */
    if (prev == t->last_site)
        led_add(w, last_key | WS_KEY_MPI, t->last_leave - w->prev_enter_before);
    led_add(w, ws_key_pair(last_key, key), c->t_enter - t->last_leave);
}

void ws_fill(struct ws_thread *w, struct ws_msg *m, double e)
{
    m->e = e;
    m->rank = tardy_rank;
    m->nreg = w ? w->nled : 0;
    m->total = w ? w->led_total : 0;
    if (w)
        memcpy(m->reg, w->led, (size_t)w->nled * sizeof *w->led);
}

static double ledger_time(const struct ws_reg *led, int nled, uint64_t key)
{
    for (int i = 0; i < nled; i++)
        if (led[i].key == key)
            return led[i].t;
    return 0;
}

static void add_cost(struct ws_thread *w, uint64_t k1, uint64_t region, double cost)
{
    struct ws_cost *r = tab_get(&w->costs, k1, region);
    if (r) {
        r->count++;
        r->cost += cost;
    }
}

int ws_shares(const struct ws_reg *led, int nled, double wait, const struct ws_msg *m,
              struct ws_share out[WS_K])
{
    /* H-CWP-DM: the excess σ of each hotspot region of the late rank over this rank, in the
     * same synchronisation interval, shares out the wait. */
    double sigma[WS_K], sum = 0, floor_t = m->total * ws_hotspot_permille / 1000.0;
    int n = m->nreg < WS_K ? m->nreg : WS_K, k = 0;
    for (int i = 0; i < n; i++) {
        double s = m->reg[i].t - ledger_time(led, nled, m->reg[i].key);
        sigma[i] = m->reg[i].t >= floor_t && s > 0 ? s : 0;
        sum += sigma[i];
    }
    if (!(sum > 0)) {
        out[0] = (struct ws_share){0, wait};
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (sigma[i] > 0)
            out[k++] = (struct ws_share){m->reg[i].key, sigma[i] / sum * wait};
    return k;
}

void ws_record_shares(struct ws_thread *w, uint64_t site, int pattern, double wait, int rank,
                      const struct ws_share *sh, int n)
{
    uint64_t k1 = WS_ROWKEY(site, pattern);
    struct ws_row *r = tab_get(&w->rows, k1, 0);
    if (r) {
        r->count++;
        r->time += wait;
        if (wait > r->tmax)
            r->tmax = wait;
        hist_add(&r->calls, wait);
        /* the ranks that caused the most here (a full list replaces its smallest) */
        int slot = -1, spare = -1, min = 0;
        for (int i = 0; i < WS_CULPRITS; i++) {
            if (r->culprit[i] == rank)
                slot = i;
            else if (r->culprit[i] < 0 && spare < 0)
                spare = i;
            if (r->culprit_t[i] < r->culprit_t[min])
                min = i;
        }
        if (slot < 0) {
            slot = spare >= 0 ? spare : min;
            r->culprit[slot] = rank;
            r->culprit_t[slot] = 0;
        }
        r->culprit_t[slot] += wait;
    }
    for (int i = 0; i < n; i++)
        add_cost(w, k1, sh[i].key, sh[i].cost);
}

void ws_record(struct ws_thread *w, uint64_t site, int pattern, double wait,
               const struct ws_msg *m)
{
    ws_record_led(w, site, pattern, wait, m, w->led, w->nled);
}

void ws_record_led(struct ws_thread *w, uint64_t site, int pattern, double wait,
                   const struct ws_msg *m, const struct ws_reg *led, int nled)
{
    struct ws_share sh[WS_K];
    int n = ws_shares(led, nled, wait, m, sh);
    ws_record_shares(w, site, pattern, wait, m->rank, sh, n);
}

void ws_consider(struct ws_thread *w, int pattern, double e, double l, const struct ws_msg *m)
{
    if (m->e > l)
        atomic_fetch_add_explicit(&ws_violations, 1, memory_order_relaxed);
    double wait = (m->e < l ? m->e : l) - e;
    if (wait > w->best_w && m->rank != tardy_rank) {
        w->best_w = wait;
        w->best_pattern = pattern;
        w->best = *m;
    }
}

void ws_settle(struct ws_thread *w, uint64_t site, int record)
{
    struct ws_group *g = w->group;
    if (g) { /* parts come later: this call's own is one of them */
        w->group = NULL;
        g->site = record ? site : 0;
        ws_takes_group(w, g);
        ws_group_put(w, g, w->best_pattern, w->best_w, &w->best);
    } else if (w->best_w > 0 && record && !ws_takes_stash(w)) {
        ws_record(w, site, w->best_pattern, w->best_w, &w->best);
    }
    if (w->synced) {
        w->nled = 0;
        w->led_total = 0;
        w->prev_site = 0; /* this call's own time belongs to the interval that ended */
    }
    w->best_w = 0;
    w->synced = 0;
    w->calls++;
}

/* ---- quiet calls (under MPI_Pcontrol(0)) ----------------------------------------------- */

/* Inside a quiet call: the wrappers it reaches (the MPI library's Fortran binding calling C,
 * QMPI's entry points) run no hooks. */
static _Thread_local int quiet_busy;

int ws_quiet_enter(struct ev_call *c, unsigned fn)
{
    /* While tardy counts as a QMPI tool, its QMPI entry point below runs the hooks. */
    if (!ws_on || quiet_busy || (ev_self && ev_self->busy) ||
        (atomic_load_explicit(&ev_on, memory_order_relaxed) & EV_QMPI))
        return 0;
    quiet_busy = 1;
    c->th = NULL;
    c->fn = fn;
    c->cp = 0;
    c->dest = c->src = c->root = EV_NO_PEER;
    c->tag = -1;
    c->comm = MPI_COMM_NULL;
    c->sent = c->recv = 0;
    c->t_enter = c->t_leave = clk_now();
    return 1;
}

void ws_quiet_leave(struct ev_call *c)
{
    (void)c;
    quiet_busy = 0;
}
/* ---- communicators --------------------------------------------------------------------- */

void ws_comm_new(MPI_Comm comm, int rc)
{
    if (ws_on && rc == MPI_SUCCESS && comm != MPI_COMM_NULL)
        ws_comm_add(comm);
}

void ws_comm_free(MPI_Comm comm)
{
    struct ws_comm *sc = ws_on ? ws_comm_find(comm) : NULL;
    if (!sc)
        return;
    if (ws_self && ws_self->ntakes) /* its piggybacks come before its shadow goes */
        ws_takes_run(ws_self, 1, NULL);
    ws_batch_close(sc);
    ws_comm_remove(comm);
}

/* ---- start and finish ------------------------------------------------------------------ */

/* TARDY_TEST_CLOCK_SHIFT="rank:seconds[:rate]": that rank's raw clock runs ahead by seconds
 * and gains rate seconds per second from MPI_Init on. */
static void test_shift(void)
{
    char *end, *end2;
    long rank = strtol(cfg.test_clock_shift, &end, 10);
    if (end == cfg.test_clock_shift || *end != ':')
        return;
    double s = strtod(end + 1, &end2), rate = *end2 == ':' ? strtod(end2 + 1, NULL) : 0;
    if (rank == tardy_rank && isfinite(s) && isfinite(rate))
        ws_clock_test(s, rate);
}

void ws_init(MPI_Comm tool_comm)
{
    int want = cfg.enable && cfg.waits, all = 0;
    own_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, tool_comm);
    if (!all)
        return;
    test_shift();
    ws_hotspot_permille = cfg.waits_hotspot * 10;
    ws_sample = cfg.waits_sample;
    ws_keys_init();
    ws_coll_init();
    ws_clock_sync(tool_comm, 0);
    ws_clock_period(cfg.waits_resync_ms / 1000.0);
    ws_base = ws_corr(clk_now());
    own_Bcast(&ws_base, 1, MPI_DOUBLE, 0, tool_comm);
    ws_comm_add(MPI_COMM_WORLD);
    ws_comm_add(MPI_COMM_SELF);
    ws_on = ws_used = 1;
}

int ws_used_in_run(void)
{
    return ws_used;
}

int ws_rows(struct rowset *rs, int rank)
{
    return ws_used ? ws_collect(rs, rank) : 0;
}

static void take_all(struct ws_thread *w, void *arg)
{
    (void)arg;
    ws_takes_run(w, 1, NULL);
}

static void drain(struct ws_thread *w, void *arg)
{
    (void)arg;
    ws_ls_flush(w);
    ws_poll_deferred(w, 1);
    ws_ring_wait(w);
}

static void drain_acks(struct ws_thread *w, void *arg)
{
    (void)arg;
    ws_poll_acks(w, 1);
}

void ws_finish(MPI_Comm tool_comm)
{
    if (!ws_on)
        return;
    quiet_busy = 1; /* tardy's own calls below reach its QMPI entry points: no hooks there */
    ws_for_each_thread(take_all, NULL); /* before the batches take their shadows */
    ws_takes_release(ws_me(), ws_recvq_flush()); /* held for receives never completed */
    ws_comm_each(ws_batch_close);
    ws_rma_fini();
    ws_batch_drain(ws_me(), 1);
    ws_for_each_thread(drain, NULL);
    ws_clock_sync(tool_comm, 1); /* every rank is here: all answers have been sent */
    ws_for_each_thread(drain_acks, NULL);
    ws_on = 0;
    quiet_busy = 0;
    ws_comm_fini();
    ws_coll_fini();
    ws_recvq_fini();
}
