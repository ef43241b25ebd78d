/* Wait states of post/start/complete/wait: MPI_Win_post and MPI_Win_complete send their record
 * (enter time, ledger) to the ranks of their group on the window's shadow (rma.c). Late Post:
 * MPI_Win_start or _complete, whichever the library blocked in, against the latest post; Early
 * Wait: MPI_Win_wait (or a true MPI_Win_test) against the latest complete. Records are taken
 * without blocking: an epoch is judged once they are in, at the latest at the next epoch. */
#include "waits.h"

#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "ws_match.h"
#include "tool/base/base.h"

enum { TAG_POST = 1, TAG_COMPLETE = 2 };

/* A call that may have waited: its site (0: do not record), corrected enter and leave, and
 * this rank's ledger in it. */
struct cand {
    uint64_t site;
    double e, l;
    struct ws_led led;
};

/* One side of the epochs of a window: access (origin) or exposure (target). */
struct ws_epoch {
    int n, cap;
    int *peer;                /* the group's ranks in the window (2 cap: room to translate) */
    struct ws_msg *in, out;   /* the peers' records, and this rank's */
    MPI_Request *rin, *rout;
    int nout;                 /* sends in rout */
    int open, pattern, ncand; /* open: the records in rin are still to be judged */
    struct cand cand[2];      /* Late Post: start, complete; Early Wait: wait (or test) */
};

static atomic_int no_memory_warned;

static void out_of_memory(void)
{
    tardy_warn_once(&no_memory_warned,
                    "out of memory for post/start/complete/wait wait states; some are lost");
}

/* Room for n peers (no epoch in flight: the buffers may move). Returns 0, or -1. */
static int room(struct ws_epoch *ep, int n)
{
    if (n <= ep->cap)
        return 0;
    int *peer = realloc(ep->peer, 2 * (size_t)n * sizeof *peer);
    if (peer)
        ep->peer = peer;
    struct ws_msg *in = peer ? realloc(ep->in, (size_t)n * sizeof *in) : NULL;
    if (in)
        ep->in = in;
    MPI_Request *rin = in ? realloc(ep->rin, (size_t)n * sizeof *rin) : NULL;
    if (rin)
        ep->rin = rin;
    MPI_Request *rout = rin ? realloc(ep->rout, (size_t)n * sizeof *rout) : NULL;
    if (!rout)
        return -1;
    ep->rout = rout;
    ep->cap = n;
    return 0;
}

/* The ranks of group g in the window, into ep->peer (ep->n of them). */
static void peers(const struct ws_win *ww, struct ws_epoch *ep, MPI_Group g)
{
    int n = 0;
    ep->n = 0;
    if (g == MPI_GROUP_NULL || own_Group_size(g, &n) != MPI_SUCCESS || n <= 0)
        return;
    if (room(ep, n) < 0) {
        out_of_memory();
        return;
    }
    int *from = ep->peer + n;
    for (int i = 0; i < n; i++)
        from[i] = i;
    if (own_Group_translate_ranks(g, n, from, ww->group, ep->peer) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n; i++)
        if (ep->peer[i] != MPI_UNDEFINED)
            ep->peer[ep->n++] = ep->peer[i];
}

#pragma GCC diagnostic push /* GCC takes MPICH's MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static int arrived(struct ws_epoch *ep, int block)
{
    int done = 1;
    if (block)
        own_Waitall(ep->n, ep->rin, MPI_STATUSES_IGNORE);
    else
        own_Testall(ep->n, ep->rin, &done, MPI_STATUSES_IGNORE);
    return done;
}

static void sends_done(struct ws_epoch *ep)
{
    own_Waitall(ep->nout, ep->rout, MPI_STATUSES_IGNORE);
    ep->nout = 0;
}
#pragma GCC diagnostic pop

/* Judge the epoch, its records all in, against the latest peer: the call that waited most
 * (clamped to its duration) is recorded. Returns 0 (not judged) while the call to judge may
 * still come: a Late Post can be in the MPI_Win_complete still to come unless the latest post
 * was before MPI_Win_start returned. force: judge what there is. */
static int judge(struct ws_epoch *ep, int force)
{
    const struct ws_msg *late = &ep->in[0];
    for (int i = 1; i < ep->n; i++)
        if (ws_later_than(&ep->in[i], late))
            late = &ep->in[i];
    if (!force && (!ep->ncand || (ep->pattern == WS_LATE_POST && ep->ncand < 2 &&
                                  late->e > ep->cand[0].l)))
        return 0;
    ep->open = 0;
    const struct cand *best = NULL;
    double wait = 0;
    for (int k = 0; k < ep->ncand; k++) {
        const struct cand *t = &ep->cand[k];
        double x = (late->e < t->l ? late->e : t->l) - t->e;
        if (x > wait) {
            wait = x;
            best = t;
        }
    }
    if (!best || !best->site || late->rank == tardy_rank)
        return 1;
    if (late->e > best->l)
        atomic_fetch_add_explicit(&ws_violations, 1, memory_order_relaxed);
    struct ws_thread *w = ws_me();
    if (w)
        ws_record_led(w, best->site, ep->pattern, wait, late, &best->led);
    return 1;
}

/* Judge what is open (blocking: every record was sent before the call that ends its epoch). */
static void finish(struct ws_epoch *ep)
{
    if (ep->open) {
        arrived(ep, 1);
        judge(ep, 1);
    }
}

/* A new epoch on side *side of the window with the ranks of group g: the last one is judged,
 * the peers' records (tag) awaited. NULL when out of memory. */
static struct ws_epoch *begin(const struct ws_win *ww, struct ws_epoch **side, MPI_Group g,
                              int pattern, int tag)
{
    struct ws_epoch *ep = *side;
    if (!ep && !(ep = *side = calloc(1, sizeof *ep))) {
        out_of_memory();
        return NULL;
    }
    finish(ep);
    sends_done(ep);
    peers(ww, ep, g);
    for (int i = 0; i < ep->n; i++)
        own_Irecv(&ep->in[i], (int)sizeof *ep->in, MPI_BYTE, ep->peer[i], tag, ww->sc.shadow,
                  &ep->rin[i]);
    ep->open = ep->n > 0;
    ep->ncand = 0;
    ep->pattern = pattern;
    return ep;
}

/* Send this rank's record for call c to the epoch's peers (tag). */
static void send(const struct ws_win *ww, struct ws_epoch *ep, struct ev_call *c, int tag)
{
    struct ws_msg *m = &ep->out;
    ws_fill(ws_me(), m, ws_corr(c->t_enter));
    int bytes = (int)sizeof *m;
    for (int i = 0; i < ep->n; i++)
        own_Isend(m, bytes, MPI_BYTE, ep->peer[i], tag, ww->sc.shadow, &ep->rout[i]);
    ep->nout = ep->n;
}

/* After a call of an epoch that may have waited: note it, judge the epoch once its records
 * are in, and settle the call (a synchronisation point). */
static void waited(struct ev_call *c, MPI_Win win, int rc, int access)
{
    struct ws_thread *w = ws_on ? ws_me() : NULL;
    if (w && w->ntakes)
        ws_takes_run(w, 0, c);
    struct ws_win *ww = ws_on ? ws_win_find(win) : NULL;
    struct ws_epoch *ep = ww ? access ? ww->access : ww->exposure : NULL;
    if (ep && ep->open && rc == MPI_SUCCESS && ep->ncand < 2) {
        struct cand *t = &ep->cand[ep->ncand++];
        t->site = c->th && w ? SITE(c->fn, c->cp) : 0;
        t->e = ws_corr(c->t_enter);
        t->l = ws_corr(c->t_leave);
        if (w)
            t->led = w->led;
        else
            ws_led_reset(&t->led);
        if (arrived(ep, 0))
            judge(ep, 0);
    }
    if (w) {
        w->synced = 1;
        ws_settle(w, SITE(c->fn, c->cp), 0);
    }
}

void ws_win_post(struct ev_call *c, MPI_Group group, MPI_Win win)
{
    struct ws_win *ww = ws_on ? ws_win_find(win) : NULL;
    struct ws_epoch *ep = ww ? begin(ww, &ww->exposure, group, WS_EARLY_WAIT, TAG_COMPLETE)
                             : NULL;
    if (ep)
        send(ww, ep, c, TAG_POST);
}

void ws_win_start(struct ev_call *c, MPI_Group group, MPI_Win win)
{
    (void)c;
    struct ws_win *ww = ws_on ? ws_win_find(win) : NULL;
    if (ww)
        begin(ww, &ww->access, group, WS_LATE_POST, TAG_POST);
}

void ws_win_started(struct ev_call *c, MPI_Win win, int rc)
{
    waited(c, win, rc, 1);
}

void ws_win_complete(struct ev_call *c, MPI_Win win)
{
    struct ws_win *ww = ws_on ? ws_win_find(win) : NULL;
    if (ww && ww->access)
        send(ww, ww->access, c, TAG_COMPLETE);
}

void ws_win_completed(struct ev_call *c, MPI_Win win, int rc)
{
    waited(c, win, rc, 1);
}

void ws_win_waited(struct ev_call *c, MPI_Win win, int rc)
{
    waited(c, win, rc, 0);
}

void ws_pscw_close(struct ws_win *ww)
{
    struct ws_epoch *side[2] = {ww->access, ww->exposure};
    for (int i = 0; i < 2; i++) {
        struct ws_epoch *ep = side[i];
        if (!ep)
            continue;
        finish(ep);
        sends_done(ep);
        free(ep->peer);
        free(ep->in);
        free(ep->rin);
        free(ep->rout);
        free(ep);
    }
    ww->access = ww->exposure = NULL;
}
