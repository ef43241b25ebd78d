/* Wait states, point-to-point side: piggyback messages on shadow communicators, completion of
 * receives (blocking, nonblocking, persistent, matched), the per-thread ledger of regions
 * since the last synchronisation point, and the recording of waits with their root causes
 * (H-CWP-DM, DESIGN.md 3.6). */
#include "waits.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ws.h"
#include "warn.h"

int ws_on;
static int ws_used;    /* wait states were on in this run */
atomic_ullong ws_violations;
int ws_hotspot_permille = 10;
int ws_sample = 1;

const char *const ws_pattern_name[WS_NPATTERNS] = {
    "none", "late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn",
    "late_broadcast", "early_reduce", "early_scan"};

static _Thread_local struct ws_thread *self;
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
    if (__builtin_expect(self != NULL, 1))
        return self;
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
    pthread_mutex_lock(&threads_lock);
    w->next = threads;
    threads = w;
    pthread_mutex_unlock(&threads_lock);
    return self = w;
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
    /* the previous MPI call (when it was no synchronisation point), then the interval */
    if (prev == t->last_site)
        led_add(w, ws_site_key(prev) | WS_KEY_MPI, t->last_leave - w->prev_enter_before);
    led_add(w, ws_region_key(t->last_site, site), c->t_enter - t->last_leave);
}

void ws_fill(struct ws_thread *w, struct ws_msg *m, double e)
{
    m->e = e;
    m->rank = tardy_rank;
    m->flags = 0;
    m->unused = 0;
    m->nreg = w->nled;
    m->total = w->led_total;
    memcpy(m->reg, w->led, (size_t)w->nled * sizeof *w->led);
}

static double own_time(const struct ws_thread *w, uint64_t key)
{
    for (int i = 0; i < w->nled; i++)
        if (w->led[i].key == key)
            return w->led[i].t;
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

/* H-CWP-DM: the excess σ of each hotspot region of the late rank over this rank, in the
 * same synchronisation interval, shares out the wait. */
static void root_causes(struct ws_thread *w, uint64_t k1, double wait, const struct ws_msg *m)
{
    double sigma[WS_K], sum = 0, floor_t = m->total * ws_hotspot_permille / 1000.0;
    int n = m->nreg < WS_K ? m->nreg : WS_K;
    for (int i = 0; i < n; i++) {
        double s = m->reg[i].t - own_time(w, m->reg[i].key);
        sigma[i] = m->reg[i].t >= floor_t && s > 0 ? s : 0;
        sum += sigma[i];
    }
    if (!(sum > 0)) {
        add_cost(w, k1, 0, wait);
        return;
    }
    for (int i = 0; i < n; i++)
        if (sigma[i] > 0)
            add_cost(w, k1, m->reg[i].key, sigma[i] / sum * wait);
}

void ws_record(struct ws_thread *w, uint64_t site, int pattern, double wait,
               const struct ws_msg *m)
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
            if (r->culprit[i] == m->rank)
                slot = i;
            else if (r->culprit[i] < 0 && spare < 0)
                spare = i;
            if (r->culprit_t[i] < r->culprit_t[min])
                min = i;
        }
        if (slot < 0) {
            slot = spare >= 0 ? spare : min;
            r->culprit[slot] = m->rank;
            r->culprit_t[slot] = 0;
        }
        r->culprit_t[slot] += wait;
    }
    root_causes(w, k1, wait, m);
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
    if (w->best_w > 0 && record)
        ws_record(w, site, w->best_pattern, w->best_w, &w->best);
    if (w->synced) {
        w->nled = 0;
        w->led_total = 0;
        w->prev_site = 0; /* this call's own time belongs to the interval that ended */
    }
    w->best_w = 0;
    w->synced = 0;
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

/* ---- sends ----------------------------------------------------------------------------- */

static int is_sync_send(unsigned fn)
{
    return fn == TARDY_FN_MPI_Ssend || fn == TARDY_FN_MPI_Issend || fn == TARDY_FN_MPI_Ssend_init;
}

/* A ring slot for a small message of the protocol (its previous send has long completed). */
static struct ws_msg *slot(struct ws_thread *w, MPI_Request **req)
{
    unsigned i = w->ring_pos++ % WS_RING;
    if (w->ring_req[i] != MPI_REQUEST_NULL)
        PMPI_Wait(&w->ring_req[i], MPI_STATUS_IGNORE); /* eager and long sent: returns at once */
    *req = &w->ring_req[i];
    return &w->ring[i];
}

/* Post the piggyback of a send; a synchronous send also posts the receive of its answer
 * (returned, or NULL). */
static struct ws_ack *post(struct ws_thread *w, const struct ws_comm *sc, int dest, int tag,
                           double e, unsigned fn)
{
    MPI_Request *req;
    struct ws_msg *m = slot(w, &req);
    ws_fill(w, m, e);
    m->flags = is_sync_send(fn) ? WS_F_SYNC : 0;
    PMPI_Isend(m, WS_MSG_BYTES(m->nreg), MPI_BYTE, dest, tag, sc->shadow, req);
    if (!m->flags)
        return NULL;
    struct ws_ack *a = w->free_acks;
    if (a)
        w->free_acks = a->next;
    else if (!(a = malloc(sizeof *a)))
        return NULL; /* the answer stays unreceived: harmless on the answer communicator */
    a->site = 0;
    a->e = e;
    a->l = 0;
    PMPI_Irecv(&a->m, (int)sizeof a->m, MPI_BYTE, dest, tag, sc->ack, &a->req);
    a->next = w->acks;
    w->acks = a;
    return a;
}

void ws_send(struct ev_call *c)
{
    if (!ws_on || c->dest < 0)
        return;
    struct ws_comm *sc = ws_comm_find(c->comm);
    struct ws_thread *w = sc ? ws_me() : NULL;
    struct ws_ack *a = w ? post(w, sc, c->dest, c->tag, ws_corr(c->t_enter), c->fn) : NULL;
    if (a && c->fn == TARDY_FN_MPI_Ssend)
        w->sync_ack = a;
}

/* After a blocking synchronous send: its wait for the receiver is known once the answer
 * (the receive's post time) is in. */
void ws_sent(struct ev_call *c, int rc)
{
    struct ws_thread *w = ws_on && c->dest >= 0 && ws_comm_find(c->comm) ? self : NULL;
    if (!w)
        return;
    struct ws_ack *a = w->sync_ack;
    w->sync_ack = NULL;
    if (a && rc == MPI_SUCCESS && c->th) {
        a->site = SITE(c->fn, c->cp);
        a->l = ws_corr(c->t_leave);
    }
    if (w->acks)
        ws_poll_acks(w, 0);
}

void ws_poll_acks(struct ws_thread *w, int final)
{
    struct ws_ack **p = &w->acks;
    while (*p) {
        struct ws_ack *a = *p;
        int done = 0;
        PMPI_Test(&a->req, &done, MPI_STATUS_IGNORE);
        if (!done && !final) {
            p = &a->next;
            continue;
        }
        if (!done) { /* never answered (its receive was freed or cancelled) */
            PMPI_Cancel(&a->req);
            PMPI_Wait(&a->req, MPI_STATUS_IGNORE);
        } else if (a->site && a->l > 0) {
            if (a->m.e > a->l)
                atomic_fetch_add_explicit(&ws_violations, 1, memory_order_relaxed);
            double wait = (a->m.e < a->l ? a->m.e : a->l) - a->e;
            if (wait > 0 && a->m.rank != tardy_rank)
                ws_record(w, a->site, WS_LATE_RECEIVER, wait, &a->m);
        }
        *p = a->next;
        a->next = w->free_acks;
        w->free_acks = a;
    }
}

/* ---- receives -------------------------------------------------------------------------- */

/* Take the piggyback of the message a receive on comm completed with. */
static int take(MPI_Comm comm, const MPI_Status *st, struct ws_msg *m)
{
    if (st == MPI_STATUS_IGNORE || st->MPI_SOURCE < 0)
        return 0;
    struct ws_comm *sc = ws_comm_find(comm);
    if (!sc)
        return 0;
    PMPI_Recv(m, (int)sizeof *m, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, sc->shadow,
              MPI_STATUS_IGNORE);
    return 1;
}

/* Answer a synchronous send: when its receive was posted (e_post), with the ledger. */
static void answer(struct ws_thread *w, MPI_Comm comm, const MPI_Status *st, double e_post)
{
    struct ws_comm *sc = ws_comm_find(comm);
    MPI_Request *req;
    struct ws_msg *m = sc ? slot(w, &req) : NULL;
    if (!m)
        return;
    ws_fill(w, m, e_post);
    PMPI_Isend(m, WS_MSG_BYTES(m->nreg), MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, sc->ack, req);
}

/* A receive on comm completed in call c; e_post: when it was posted (corrected). */
static void received(struct ws_thread *w, struct ev_call *c, MPI_Comm comm, const MPI_Status *st,
                     double e_post)
{
    struct ws_msg m;
    if (!take(comm, st, &m))
        return;
    if (m.flags & WS_F_SYNC)
        answer(w, comm, st, e_post);
    w->synced = 1;
    if (c->th) {
        ws_consider(w, WS_LATE_SENDER, ws_corr(c->t_enter), ws_corr(c->t_leave), &m);
        c->t_leave = clk_now(); /* taking the piggyback is part of the call, not compute */
    }
}

void ws_recv(struct ev_call *c, MPI_Comm comm, const MPI_Status *st, int rc)
{
    if (!ws_on || rc != MPI_SUCCESS)
        return;
    struct ws_thread *w = ws_me();
    if (!w)
        return;
    received(w, c, comm, st, ws_corr(c->t_enter));
    ws_poll_deferred(w, 0);
    if (w->acks)
        ws_poll_acks(w, 0);
    ws_settle(w, SITE(c->fn, c->cp), c->th != NULL);
}

void ws_irecv(struct ev_call *c, MPI_Comm comm, MPI_Request req, int rc)
{
    if (!ws_on || rc != MPI_SUCCESS || !ws_comm_find(comm))
        return;
    struct ws_rq rq = {.kind = WS_RQ_RECV, .fn = c->fn, .dest = c->src, .tag = c->tag,
                       .comm = comm, .t_post = c->th ? ws_corr(c->t_enter) : 0};
    ws_rq_add(req, &rq);
}

void ws_pinit(struct ev_call *c, MPI_Request req, int rc)
{
    if (!ws_on || rc != MPI_SUCCESS || !ws_comm_find(c->comm))
        return;
    int recv = c->fn == TARDY_FN_MPI_Recv_init;
    struct ws_rq rq = {.kind = recv ? WS_RQ_PRECV : WS_RQ_PSEND, .fn = c->fn,
                       .dest = recv ? c->src : c->dest, .tag = c->tag, .comm = c->comm};
    if (recv || rq.dest >= 0)
        ws_rq_add(req, &rq);
}

void ws_start(struct ev_call *c, int n, const MPI_Request reqs[])
{
    if (!ws_on || !atomic_load_explicit(&ws_rq_live, memory_order_relaxed))
        return;
    struct ws_thread *w = ws_me();
    for (int i = 0; w && i < n; i++) {
        struct ws_rq_ref ref;
        if (ws_rq_find(reqs[i], &ref) == 0 && ref.rq.kind == WS_RQ_PSEND) {
            struct ws_comm *sc = ws_comm_find(ref.rq.comm);
            if (sc) /* a persistent synchronous send's answer is taken but not recorded */
                post(w, sc, ref.rq.dest, ref.rq.tag, ws_corr(c->t_enter), ref.rq.fn);
        }
    }
}

void ws_message(MPI_Comm comm, MPI_Message m)
{
    if (ws_on && ws_comm_find(comm))
        ws_msgmap_put(m, comm);
}

MPI_Comm ws_message_comm(MPI_Message m)
{
    return ws_on ? ws_msgmap_take(m) : MPI_COMM_NULL;
}

void ws_reqfree(struct ev_call *c, MPI_Request req)
{
    (void)c;
    struct ws_rq_ref ref;
    if (!ws_on || !atomic_load_explicit(&ws_rq_live, memory_order_relaxed) ||
        ws_rq_find(req, &ref) < 0)
        return;
    ws_rq_remove(&ref);
    if (ref.rq.kind == WS_RQ_ICOLL) {
        /* The exchange still completes; it is finished later and not recorded. */
        struct ws_thread *w = ws_me();
        ref.rq.ic->site = 0;
        if (w) {
            ref.rq.ic->next = w->deferred;
            w->deferred = ref.rq.ic;
        }
    } else if (ref.rq.kind == WS_RQ_RECV) {
        /* A receive freed while active: take its piggyback blind when source and tag are
         * known (the contents are discarded); a wildcard one cannot be matched. */
        static struct ws_msg discard;
        struct ws_comm *sc = ws_comm_find(ref.rq.comm);
        MPI_Request r;
        if (sc && ref.rq.dest >= 0 && ref.rq.tag >= 0 &&
            PMPI_Irecv(&discard, (int)sizeof discard, MPI_BYTE, ref.rq.dest, ref.rq.tag,
                       sc->shadow, &r) == MPI_SUCCESS) {
            PMPI_Request_free(&r);
        } else if (sc && ref.rq.dest != MPI_PROC_NULL) {
            static atomic_int warned;
            if (!atomic_exchange(&warned, 1))
                tardy_warn("a wildcard receive was freed while active; waits on its "
                           "communicator may be misattributed");
        }
    }
}

/* ---- completion ------------------------------------------------------------------------ */

struct ws_rq_ref *ws_snap_room(int n)
{
    struct ws_thread *w = ws_on ? ws_me() : NULL;
    if (!w)
        return NULL;
    w->snap_n = 0;
    if (!atomic_load_explicit(&ws_rq_live, memory_order_relaxed) || n <= 0)
        return NULL;
    if (n > w->snap_cap) {
        struct ws_rq_ref *s = realloc(w->snap, (size_t)n * sizeof *s);
        if (!s)
            return NULL;
        w->snap = s;
        w->snap_cap = n;
    }
    w->snap_n = n;
    return w->snap;
}

void ws_snap(struct ev_call *c, int n, const MPI_Request reqs[])
{
    (void)c;
    struct ws_rq_ref *snap = ws_snap_room(n);
    for (int i = 0; snap && i < n; i++)
        ws_rq_find(reqs[i], &snap[i]);
}

MPI_Status *ws_status1(MPI_Status *user, MPI_Status *own)
{
    return user == MPI_STATUS_IGNORE ? own : user;
}

MPI_Status *ws_statuses(MPI_Status *user, int n)
{
    if (user != MPI_STATUSES_IGNORE || !ws_on || n <= 0 ||
        !atomic_load_explicit(&ws_rq_live, memory_order_relaxed))
        return user;
    struct ws_thread *w = ws_me();
    if (!w)
        return user;
    if (n > w->sts_cap) {
        MPI_Status *s = realloc(w->sts, (size_t)n * sizeof *s);
        if (!s)
            return user;
        w->sts = s;
        w->sts_cap = n;
    }
    return w->sts;
}

void ws_done(struct ev_call *c, int i, const MPI_Status *st)
{
    struct ws_thread *w = self;
    if (!w || i < 0 || i >= w->snap_n || w->snap[i].slot < 0)
        return;
    struct ws_rq_ref *ref = &w->snap[i];
    int cancelled = 0;
    switch (ref->rq.kind) {
    case WS_RQ_RECV:
    case WS_RQ_PRECV:
        if (ref->rq.kind == WS_RQ_RECV)
            ws_rq_remove(ref);
        if (st != MPI_STATUS_IGNORE)
            PMPI_Test_cancelled(st, &cancelled);
        if (!cancelled)
            received(w, c, ref->rq.comm, st,
                     ref->rq.kind == WS_RQ_RECV ? ref->rq.t_post : ws_corr(c->t_enter));
        break;
    case WS_RQ_ICOLL:
        ws_rq_remove(ref);
        ws_icoll_done(w, ref->rq.ic, c);
        break;
    default:
        break;
    }
    ref->slot = -1;
}

void ws_done_all(struct ev_call *c, int n, const MPI_Status sts[])
{
    for (int i = 0; i < n; i++)
        ws_done(c, i, sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i]);
}

void ws_done_some(struct ev_call *c, int n, const int idx[], const MPI_Status sts[])
{
    if (n == MPI_UNDEFINED)
        return;
    for (int k = 0; k < n; k++)
        ws_done(c, idx[k], sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[k]);
}

void ws_complete(struct ev_call *c)
{
    struct ws_thread *w = ws_on ? self : NULL;
    if (!w)
        return;
    w->snap_n = 0;
    if (w->deferred)
        ws_poll_deferred(w, 0);
    if (w->acks)
        ws_poll_acks(w, 0);
    ws_settle(w, SITE(c->fn, c->cp), c->th != NULL);
}

/* ---- communicators --------------------------------------------------------------------- */

void ws_comm_new(MPI_Comm comm, int rc)
{
    if (ws_on && rc == MPI_SUCCESS && comm != MPI_COMM_NULL)
        ws_comm_add(comm);
}

void ws_comm_free(MPI_Comm comm)
{
    if (ws_on)
        ws_comm_remove(comm);
}

/* ---- start and finish ------------------------------------------------------------------ */

/* TARDY_TEST_CLOCK_SHIFT="rank:seconds": that rank's raw clock runs ahead by seconds. */
static void test_shift(void)
{
    char *end;
    long rank = strtol(cfg.test_clock_shift, &end, 10);
    if (end == cfg.test_clock_shift || *end != ':')
        return;
    double s = strtod(end + 1, NULL);
    if (rank == tardy_rank && isfinite(s))
        ws_shift = s;
}

void ws_init(MPI_Comm tool_comm)
{
    int want = cfg.enable && cfg.waits, all = 0;
    PMPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, tool_comm);
    if (!all)
        return;
    test_shift();
    ws_hotspot_permille = cfg.waits_hotspot * 10;
    ws_sample = cfg.waits_sample;
    ws_keys_init();
    ws_coll_init();
    ws_clock_sync(tool_comm, 0);
    double base = ws_corr(clk_now());
    PMPI_Bcast(&base, 1, MPI_DOUBLE, 0, tool_comm);
    ws_coll_base(base);
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

static void drain(struct ws_thread *w, void *arg)
{
    (void)arg;
    ws_poll_deferred(w, 1);
    for (int i = 0; i < WS_RING; i++)
        if (w->ring_req[i] != MPI_REQUEST_NULL)
            PMPI_Wait(&w->ring_req[i], MPI_STATUS_IGNORE);
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
    ws_for_each_thread(drain, NULL);
    ws_clock_sync(tool_comm, 1); /* every rank is here: all answers have been sent */
    ws_for_each_thread(drain_acks, NULL);
    ws_on = 0;
    quiet_busy = 0;
    ws_comm_fini();
    ws_coll_fini();
}
