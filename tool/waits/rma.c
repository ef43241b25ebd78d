/* Wait states of one-sided communication, windows and fences: every window gets a shadow
 * communicator (its communicator's ranks), made when the window is created and freed with it.
 * Creation and freeing exchange the latest rank's record at once (Wait at Window Create/Free,
 * one reduction like a collective's); fences join the shadow's batch as blocking collectives
 * do (batch.c: Wait at Fence). Post/start/complete/wait are in pscw.c. */
#include "waits.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "ws_match.h"
#include "tool/base/base.h"

#define WIN_SLOTS 128
/* Windows with a shadow at once: each holds a communicator id (MPICH has 2048 in all, and
 * each window already holds one of its own). */
#define WS_WINS_MAX 64

/* The windows with a shadow. */
static struct {
    struct ws_win win[WIN_SLOTS];
    atomic_int live;
    pthread_mutex_t lock;
    atomic_int full_warned;
} windows = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct ws_win *ws_win_find(MPI_Win win)
{
    uint64_t k = ws_handle_key(&win, sizeof win);
    for (uint32_t i = ws_handle_slot(k, WIN_SLOTS - 1), n = 0; n < WIN_SLOTS; i = (i + 1) & (WIN_SLOTS - 1), n++) {
        uint64_t s = atomic_load_explicit(&windows.win[i].key, memory_order_acquire);
        if (s == k)
            return &windows.win[i];
        if (s == 0)
            return NULL;
    }
    return NULL;
}

/* A free slot for key k, reserved (under win_lock); NULL when full or at the bound. */
static struct ws_win *claim(uint64_t k)
{
    if (atomic_load(&windows.live) >= WS_WINS_MAX)
        return NULL;
    for (uint32_t i = ws_handle_slot(k, WIN_SLOTS - 1), n = 0; n < WIN_SLOTS; i = (i + 1) & (WIN_SLOTS - 1), n++) {
        uint64_t s = atomic_load(&windows.win[i].key);
        if (s == 0 || s == 1) {
            atomic_store(&windows.win[i].key, k | 1ull << 62);
            return &windows.win[i];
        }
    }
    return NULL;
}

/* Wait at Window Create/Free: the latest rank's record over the shadow, this call judged
 * against it (collective). */
static void exchange(struct ws_thread *w, struct ev_call *c, MPI_Comm shadow, int pattern)
{
    struct ws_msg mine, res;
    ws_fill(w, &mine, ws_corr(c->t_enter));
    own_Allreduce(&mine, &res, 1, ws_msg_dtype(), ws_later(), shadow);
    if (w && c->th)
        ws_consider(w, pattern, ws_corr(c->t_enter), ws_corr(c->t_leave), &res);
}

/* The end of a window call, a synchronisation point: its largest wait is recorded. */
static void settle(struct ws_thread *w, struct ev_call *c)
{
    if (!w)
        return;
    if (c->th)
        c->t_leave = clk_now(); /* the exchanges are part of the call, not compute */
    w->synced = 1;
    ws_settle(w, SITE(c->fn, c->cp), c->th != NULL);
}

void ws_win_new(struct ev_call *c, MPI_Comm comm, MPI_Win win, int rc)
{
    if (!ws_on || rc != MPI_SUCCESS || win == MPI_WIN_NULL || comm == MPI_COMM_NULL)
        return;
    struct ws_thread *w = ws_me();
    if (w && w->ntakes)
        ws_takes_run(w, 0, c);
    uint64_t k = ws_handle_key(&win, sizeof win);
    pthread_mutex_lock(&windows.lock);
    struct ws_win *ww = ws_win_find(win) ? NULL : claim(k);
    pthread_mutex_unlock(&windows.lock);
    int rank = 0, size = 1;
    own_Comm_rank(comm, &rank);
    own_Comm_size(comm, &size);
    MPI_Comm shadow = ws_comm_copy(comm);
    struct ws_batch *batch = size > 1 && shadow != MPI_COMM_NULL ? ws_batch_new(shadow) : NULL;
    /* every rank of the window must agree, or a fence exchange would wait forever */
    int ok = ww && shadow != MPI_COMM_NULL && (batch || size <= 1), all = 0;
    if (shadow != MPI_COMM_NULL)
        own_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, shadow);
    if (!all) {
        if (shadow != MPI_COMM_NULL)
            own_Comm_free(&shadow);
        if (ww)
            atomic_store(&ww->key, 1);
        free(batch);
        atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_WINDOWS], 1, memory_order_relaxed);
        tardy_warn_once(&windows.full_warned, "too many windows for wait-state tracking; waits on "
                        "further windows are not measured");
        return;
    }
    memset(&ww->sc, 0, sizeof ww->sc);
    ww->sc.shadow = shadow;
    ww->sc.ack = MPI_COMM_NULL;
    ww->sc.rank = rank;
    ww->sc.size = size;
    ww->sc.nbr_in = -1;
    ww->sc.batch = batch;
    ww->access = ww->exposure = NULL;
    own_Comm_group(shadow, &ww->group);
    atomic_fetch_add(&windows.live, 1);
    atomic_store_explicit(&ww->key, k, memory_order_release);
    exchange(w, c, shadow, WS_WAIT_WIN_CREATE);
    settle(w, c);
}

/* Judge the window's epochs, close its fence batch (which then frees the shadow), free
 * what is left (collective over the window) and give the slot back. */
static void release(struct ws_win *ww)
{
    ws_pscw_close(ww);
    pr_forget(ww->sc.shadow);
    ws_batch_close(&ww->sc);
    if (ww->sc.shadow != MPI_COMM_NULL && !ww->sc.lent) /* lent: the closing exchange frees it */
        own_Comm_free(&ww->sc.shadow);
    own_Group_free(&ww->group);
    pthread_mutex_lock(&windows.lock);
    atomic_store(&ww->key, 1);
    atomic_fetch_sub(&windows.live, 1);
    pthread_mutex_unlock(&windows.lock);
}

void ws_win_free(struct ev_call *c, MPI_Win win, int rc)
{
    struct ws_win *ww = ws_on && rc == MPI_SUCCESS ? ws_win_find(win) : NULL;
    if (!ww)
        return;
    struct ws_thread *w = ws_me();
    if (w && w->ntakes)
        ws_takes_run(w, 0, c);
    exchange(w, c, ww->sc.shadow, WS_WAIT_WIN_FREE);
    release(ww);
    settle(w, c);
}

void ws_win_fence(struct ev_call *c, MPI_Win win, int rc)
{
    struct ws_thread *w = ws_on && rc == MPI_SUCCESS ? ws_me() : NULL;
    if (!w)
        return;
    if (w->ntakes)
        ws_takes_run(w, 0, c);
    struct ws_win *ww = ws_win_find(win);
    /* a sampled exchange stands for ws_sample fences (as collectives: coll.c) */
    if (ww && ww->sc.batch && ws_sampled(&ww->sc) &&
        ws_batch_add(w, &ww->sc, c, WS_WAIT_FENCE, EV_NO_PEER) && c->th)
        c->t_leave = clk_now(); /* a batch's exchange is part of the call, not compute */
    w->synced = 1;
    ws_settle(w, SITE(c->fn, c->cp), 0);
}

void ws_win_synced(struct ev_call *c, int rc)
{
    struct ws_thread *w = ws_on && rc == MPI_SUCCESS ? ws_me() : NULL;
    if (w && w->ntakes)
        ws_takes_run(w, 0, c);
    settle(w, c);
}

void ws_rma_fini(void)
{
    for (int i = 0; i < WIN_SLOTS; i++) {
        uint64_t k = atomic_load(&windows.win[i].key);
        if (k > 1 && !(k >> 62))
            release(&windows.win[i]);
        atomic_store(&windows.win[i].key, 0);
    }
}
