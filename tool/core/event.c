/* Event core: per-thread state and the statistics kept at the end of every MPI call. */
#include "core.h"

#include <pthread.h>
#include <stdlib.h>

#include "mpit/own/own.h"
#include "tool/base/base.h"

/* The state other rooms read (core.h): whether and which calls count, the collection epoch,
 * this thread's state. */
atomic_int ev_on;
atomic_int ev_due;
void (*ev_due_hook)(void);
atomic_uint ev_epoch;
_Thread_local struct ev_thread *ev_self;

/* The rest, this file's only. */
static struct {
    struct ev_thread *threads; /* every thread's state, newest first */
    pthread_mutex_t lock;      /* guards threads */
    atomic_int oom_warned;
} ev = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct ev_thread *ev_thread_attach(void)
{
    struct ev_thread *t = calloc(1, sizeof *t);
    if (!t) {
        tardy_warn_once(&ev.oom_warned,
                        "out of memory for a thread's tables; that thread is not profiled");
        return NULL;
    }
    tab_init(&t->mpi_rows, sizeof(struct mpi_row), mpi_row_init);
    tab_init(&t->intervals, sizeof(struct iv_row), iv_row_init);
    tab_init(&t->peers, sizeof(struct peer_row), peer_row_init);
    t->epoch = atomic_load(&ev_epoch);
    t->ctr = ctr_thread_new();
    pthread_mutex_lock(&ev.lock);
    t->next = ev.threads;
    ev.threads = t;
    pthread_mutex_unlock(&ev.lock);
    ev_self = t;
    return t;
}

int ev_run_due(int layers)
{
    if (atomic_exchange(&ev_due, 0) && ev_due_hook)
        ev_due_hook();
    return (atomic_load_explicit(&ev_on, memory_order_relaxed) & layers) != 0;
}

void ev_record(unsigned fn, void *ra, double t_enter, double t_leave)
{
    struct ev_thread *t = ev_thread();
    if (!t)
        return;
    struct ev_call c = {.th = t, .fn = fn, .cp = cs_capture(ra, &t), .dest = EV_NO_PEER,
                        .src = EV_NO_PEER, .root = EV_NO_PEER, .tag = -1,
                        .comm = MPI_COMM_NULL, .t_enter = t_enter, .t_leave = t_leave};
    t->busy = 1;
    ev_leave(&c);
}

/* The interval from the previous call (row number iv_hint tried first); returns the row's
 * number, 0 when memory is short. */
static uint32_t count_interval(struct ev_thread *t, uint64_t site, double d, uint32_t iv_hint)
{
    uint32_t i = tab_find_hinted(&t->intervals, t->last_site, site, iv_hint);
    if (!i)
        return 0;
    struct iv_row *r = tab_row(&t->intervals, i - 1);
    r->count++;
    r->time += d;
    r->sumsq += d * d;
    if (d < r->tmin)
        r->tmin = d;
    if (d > r->tmax)
        r->tmax = d;
    hist_add(&r->calls, d);
    t->compute += d;
    return i;
}

/* The peer row of world rank world, through *hint (updated). */
static struct peer_row *peer(struct ev_thread *t, int world, uint32_t *hint)
{
    uint32_t i = tab_find_hinted(&t->peers, (uint64_t)world, 0, *hint);
    *hint = i;
    return i ? tab_row(&t->peers, i - 1) : NULL;
}

/* The peers' rows, with the hints of the site's MPI row r (NULL when memory is short). */
static void count_peer(struct ev_thread *t, const struct ev_call *c, struct mpi_row *r)
{
    uint32_t none[2] = {0, 0};
    if (c->dest >= 0 && c->sent > 0) {
        struct peer_row *p = peer(t, pr_world(c->comm, c->dest), r ? &r->dest_hint : &none[0]);
        if (p) {
            p->sent_msgs++;
            p->sent_bytes += c->sent;
        }
    }
    if (c->src >= 0 && c->recv > 0) {
        struct peer_row *p = peer(t, pr_world(c->comm, c->src), r ? &r->src_hint : &none[1]);
        if (p) {
            p->recv_msgs++;
            p->recv_bytes += c->recv;
        }
    }
}

/* A loop makes the same calls in the same order, so the MPI row of the previous call
 * (t->last_row) keeps the numbers of the rows the next call used (struct mpi_row's hints):
 * in a loop, each row is found with one comparison of keys instead of a hash lookup. */
void ev_leave(struct ev_call *c)
{
    struct ev_thread *t = c->th;
    uint64_t site = SITE(c->fn, c->cp);
    double d = c->t_leave - c->t_enter;
    const struct mpi_row *prev = t->last_row ? tab_row(&t->mpi_rows, t->last_row - 1) : NULL;
    uint32_t next_hint = prev ? prev->next_hint : 0, iv_hint = prev ? prev->iv_hint : 0;
    uint32_t row = tab_find_hinted(&t->mpi_rows, site, 0, next_hint);
    struct mpi_row *r = row ? tab_row(&t->mpi_rows, row - 1) : NULL;
    if (r) {
        r->count++;
        r->time += d;
        if (d < r->tmin)
            r->tmin = d;
        if (d > r->tmax)
            r->tmax = d;
        r->sent += c->sent;
        r->recv += c->recv;
        hist_add(&r->calls, d);
    }
    t->mpi += d;
    unsigned epoch = atomic_load_explicit(&ev_epoch, memory_order_relaxed);
    uint64_t from = t->epoch == epoch ? t->last_site : 0;
    uint32_t iv = from ? count_interval(t, site, c->t_enter - t->last_leave, iv_hint) : 0;
    if (t->last_row) { /* after finding row: the rows may have moved since prev was read */
        struct mpi_row *p = tab_row(&t->mpi_rows, t->last_row - 1);
        p->next_hint = row;
        p->iv_hint = iv;
    }
    if (t->ctr)
        ctr_account(t->ctr, from, site);
    if (c->dest >= 0 || c->src >= 0)
        count_peer(t, c, r);
    t->last_site = site;
    t->last_row = row;
    t->last_leave = c->t_leave;
    t->epoch = epoch;
    t->busy = 0;
}

static void add_compute(struct ev_thread *t, void *sum)
{
    *(double *)sum += t->compute;
}

double ev_rank_compute(void)
{
    double sum = 0;
    ev_for_each_thread(add_compute, &sum);
    return sum;
}

void ev_for_each_thread(void (*fn)(struct ev_thread *t, void *arg), void *arg)
{
    pthread_mutex_lock(&ev.lock);
    for (struct ev_thread *t = ev.threads; t; t = t->next)
        fn(t, arg);
    pthread_mutex_unlock(&ev.lock);
}
