/* Wait states, per thread: the state of each thread, its ledger of regions since the last
 * synchronisation point, and the recording of waits with their root causes (H-CWP-DM,
 * docs/design.md 3.6) into bounded per-thread tables. */
#include "waits.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"
#include "ws_record.h"

int ws_on;
atomic_ullong ws_violations;
int ws_sample = 1;


_Thread_local struct ws_thread *ws_self;
/* Every thread's state (finalize visits them). */
static struct {
    struct ws_thread *list;
    pthread_mutex_t lock;
    atomic_int oom_warned;
} threads = {.lock = PTHREAD_MUTEX_INITIALIZER};

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

struct ws_thread *ws_me_make(void)
{
    struct ws_thread *w = calloc(1, sizeof *w);
    if (w && (!(w->ring = ws_ring_new()) ||
              !(w->takes = malloc(WS_TAKES * sizeof *w->takes)))) {
        free(w->ring);
        free(w);
        w = NULL;
    }
    if (!w) {
        tardy_warn_once(&threads.oom_warned,
                        "out of memory for wait-state tables; a thread's waits are lost");
        return NULL;
    }
    tab_init(&w->rows, sizeof(struct ws_row), ws_row_init);
    tab_init(&w->costs, sizeof(struct ws_cost), ws_cost_init);
    w->held_max = -HUGE_VAL;
    w->take_cap = WS_TAKES;
    ws_led_reset(&w->led);
    pthread_mutex_lock(&threads.lock);
    w->next = threads.list;
    threads.list = w;
    pthread_mutex_unlock(&threads.lock);
    return ws_self = w;
}

void ws_for_each_thread(void (*fn)(struct ws_thread *w, void *arg), void *arg)
{
    pthread_mutex_lock(&threads.lock);
    for (struct ws_thread *w = threads.list; w; w = w->next)
        fn(w, arg);
    pthread_mutex_unlock(&threads.lock);
}

/* ---- the ledger ----------------------------------------------------------------------- */

/* The keys of call site `site` in the thread's small cache of recent sites, with those of
 * the interval from call site `from` to it (a loop meets the same few again and again). */
static const struct ws_keyslot *site_keys(struct ws_thread *w, uint64_t site, uint64_t from)
{
    struct ws_keyslot *k = &w->keys[(site * 0x9E3779B97F4A7C15ull) >> 60];
    if (k->site != site) {
        k->site = site;
        k->key = ws_site_key(site);
        k->from = 0;
    }
    if (k->from != from) {
        k->from = from;
        k->from_key = ws_site_key(from);
        k->pair = ws_key_pair(k->from_key, k->key);
    }
    return k;
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
    const struct ws_keyslot *k = site_keys(w, site, t->last_site);
    /* the previous MPI call (when it was no synchronisation point), then the interval */
    if (prev == t->last_site)
        ws_led_add(&w->led, k->from_key | WS_KEY_MPI, t->last_leave - w->prev_enter_before);
    ws_led_add(&w->led, k->pair, c->t_enter - t->last_leave);
}

void ws_fill(struct ws_thread *w, struct ws_msg *m, double e)
{
    m->e = e;
    m->rank = tardy_rank;
    if (w)
        m->led = w->led;
    else
        ws_led_reset(&m->led);
}

/* Count wait against rank in r's culprits (a full list replaces its smallest). */
static void blame(struct ws_row *r, int rank, double wait)
{
    for (int i = 0; i < WS_CULPRITS; i++)
        if (r->culprit[i] == rank) {
            r->culprit_t[i] += wait;
            return;
        }
    int slot = -1, min = 0;
    for (int i = 0; i < WS_CULPRITS && slot < 0; i++)
        if (r->culprit[i] < 0)
            slot = i;
        else if (r->culprit_t[i] < r->culprit_t[min])
            min = i;
    if (slot < 0)
        slot = min;
    r->culprit[slot] = rank;
    r->culprit_t[slot] = wait;
}

/* A loop records the same site and region again and again: the rows of the last wait are
 * tried first (one comparison of keys instead of a hash and a probe). */
void ws_record_shares(struct ws_thread *w, uint64_t site, int pattern, double wait, int rank,
                      const struct ws_share *sh, int n)
{
    uint64_t k1 = WS_ROWKEY(site, pattern);
    uint32_t i = w->row_hint = tab_find_hinted(&w->rows, k1, 0, w->row_hint);
    if (i) {
        struct ws_row *r = tab_row(&w->rows, i - 1);
        r->count++;
        r->time += wait;
        if (wait > r->tmax)
            r->tmax = wait;
        hist_add(&r->calls, wait);
        blame(r, rank, wait);
    }
    for (int j = 0; j < n; j++) {
        i = tab_find_hinted(&w->costs, k1, sh[j].key, j ? 0 : w->cost_hint);
        if (!j)
            w->cost_hint = i;
        if (i) {
            struct ws_cost *r = tab_row(&w->costs, i - 1);
            r->count++;
            r->cost += sh[j].cost;
        }
    }
}

void ws_record(struct ws_thread *w, uint64_t site, int pattern, double wait,
               const struct ws_msg *m)
{
    ws_record_led(w, site, pattern, wait, m, &w->led);
}

void ws_record_led(struct ws_thread *w, uint64_t site, int pattern, double wait,
                   const struct ws_msg *m, const struct ws_led *led)
{
    struct ws_share sh[WS_K];
    int n = ws_shares(led, tardy_rank, wait, m, sh);
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
