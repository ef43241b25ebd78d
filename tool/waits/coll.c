/* Wait states of collectives: an exchange on the shadow communicator finds the latest rank
 * (max enter time, its rank and its ledger; O(1) memory like Scalasca's MAXLOC). Blocking
 * collectives of intra-communicators other than scans join the communicator's batch
 * (batch.c); the others exchange at once: Scan of a fixed-size record for Early Scan, and
 * on inter-communicators an Allreduce of it.
 * Nonblocking collectives start the same exchange nonblocking at initiation and finish it
 * when the user's request completes, or later if it is still in flight (never blocking). */
#include "waits.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tool/base/base.h"
#include "mpit/own/own.h"
#include "ws_match.h"

enum xchg { X_NONE, X_ALL, X_BCAST, X_REDUCE, X_SCAN };

static enum xchg exchange_of(int pattern)
{
    switch (pattern) {
    case WS_BARRIER:
    case WS_NXN:
        return X_ALL;
    case WS_LATE_BCAST:
        return X_BCAST;
    case WS_EARLY_REDUCE:
        return X_REDUCE;
    case WS_EARLY_SCAN:
        return X_SCAN;
    default:
        return X_NONE;
    }
}

/* The exchange of collective c, X_NONE to skip it (the same decision on every rank of its
 * communicator, *sc). */
static enum xchg choose(struct ev_call *c, struct ws_comm **sc)
{
    int pattern = ws_pattern_of[c->fn < TARDY_FN_COUNT ? c->fn : 0];
    enum xchg x = exchange_of(pattern);
    *sc = x != X_NONE ? ws_comm_find(c->comm) : NULL;
    if (!*sc || (*sc)->size <= 1 || ((*sc)->inter && x != X_ALL))
        return X_NONE;
    return ws_sampled(*sc) ? x : X_NONE;
}

int ws_sampled(struct ws_comm *sc)
{
    return ws_sample <= 1 ||
           !(atomic_fetch_add_explicit(&sc->ncoll, 1, memory_order_relaxed) % (unsigned)ws_sample);
}

/* This rank's record for exchange x on sc. *waiter: this rank can wait in this collective. */
static void fill(struct ws_thread *w, struct ev_call *c, int root, const struct ws_comm *sc,
                 enum xchg x, struct ws_msg *mine, int *waiter)
{
    ws_fill(w, mine, ws_corr(c->t_enter));
    int is_root = root == sc->rank;
    *waiter = 1;
    if (x == X_BCAST) {
        *waiter = !is_root;
        if (!is_root)
            mine->e = -INFINITY;
    } else if (x == X_REDUCE) {
        *waiter = is_root;
        if (is_root)
            mine->e = -INFINITY;
    }
}

/* choose, then fill. */
static enum xchg prepare(struct ws_thread *w, struct ev_call *c, int root, struct ws_comm **sc,
                         struct ws_msg *mine, int *waiter)
{
    enum xchg x = choose(c, sc);
    if (x != X_NONE)
        fill(w, c, root, *sc, x, mine, waiter);
    return x;
}

static void judge(struct ws_thread *w, int pattern, int waiter, double e, double l,
                  const struct ws_msg *res)
{
    w->synced = 1;
    if (waiter && isfinite(res->e))
        ws_consider(w, pattern, e, l, res);
    /* a sampled exchange stands for ws_sample collectives */
    w->best_w *= ws_sample;
}

void ws_coll(struct ev_call *c, int root, int rc)
{
    struct ws_thread *w = ws_on && rc == MPI_SUCCESS ? ws_me() : NULL;
    struct ws_comm *sc;
    struct ws_msg mine, res;
    int waiter;
    if (w && w->ntakes)
        ws_takes_run(w, 0, c);
    enum xchg x = w ? choose(c, &sc) : X_NONE;
    if (x != X_NONE && sc->batch && x != X_SCAN) {
        if (ws_batch_add(w, sc, c, ws_pattern_of[c->fn], root) && c->th)
            c->t_leave = clk_now(); /* a batch's exchange is part of the call, not compute */
        w->synced = 1;
        ws_settle(w, SITE(c->fn, c->cp), 0);
        return;
    }
    if (x == X_NONE) {
        if (w)
            ws_settle(w, SITE(c->fn, c->cp), 0);
        return;
    }
    fill(w, c, root, sc, x, &mine, &waiter);
    if (x == X_SCAN)
        own_Scan(&mine, &res, 1, ws_msg_dtype(), ws_later(), sc->shadow);
    else /* an inter-communicator's (N×N only) */
        own_Allreduce(&mine, &res, 1, ws_msg_dtype(), ws_later(), sc->shadow);
    if (c->th) {
        judge(w, ws_pattern_of[c->fn], waiter, ws_corr(c->t_enter), ws_corr(c->t_leave),
              &res);
        c->t_leave = clk_now(); /* the exchange is part of the call, not compute */
    } else {
        w->synced = 1;
    }
    ws_settle(w, SITE(c->fn, c->cp), c->th != NULL);
}

struct ws_icoll *ws_ic_get(struct ws_thread *w)
{
    struct ws_icoll *ic = w->free_ic;
    if (ic)
        w->free_ic = ic->next;
    else
        ic = calloc(1, sizeof *ic);
    if (ic)
        ic->group = NULL;
    return ic;
}

void ws_ic_put(struct ws_thread *w, struct ws_icoll *ic)
{
    ic->next = w->free_ic;
    w->free_ic = ic;
}

void ws_icoll(struct ev_call *c, int root, MPI_Request req, int rc)
{
    struct ws_thread *w = ws_on && rc == MPI_SUCCESS ? ws_me() : NULL;
    struct ws_comm *sc;
    struct ws_msg mine;
    int waiter;
    enum xchg x = w ? prepare(w, c, root, &sc, &mine, &waiter) : X_NONE;
    if (x == X_NONE)
        return;
    struct ws_icoll *ic = ws_ic_get(w);
    if (!ic) {
        /* The exchange must happen on every rank, and a blocking collective would not match
         * the others' nonblocking one: start the same one here and complete it at once. */
        struct ws_msg res = mine;
        MPI_Request r;
        if (x == X_BCAST)
            own_Ibcast(&res, 1, ws_msg_dtype(), root, sc->shadow, &r);
        else if (x == X_REDUCE)
            own_Ireduce(&mine, &res, 1, ws_msg_dtype(), ws_later(), root, sc->shadow, &r);
        else if (x == X_SCAN)
            own_Iscan(&mine, &res, 1, ws_msg_dtype(), ws_later(), sc->shadow, &r);
        else
            own_Iallreduce(&mine, &res, 1, ws_msg_dtype(), ws_later(), sc->shadow, &r);
        own_Wait(&r, MPI_STATUS_IGNORE);
        return;
    }
    ic->mine = mine;
    ic->res = mine;
    ic->nnb = 0;
    ic->pattern = ws_pattern_of[c->fn];
    ic->waiter = waiter && c->th;
    ic->site = 0;
    if (x == X_BCAST)
        own_Ibcast(&ic->res, 1, ws_msg_dtype(), root, sc->shadow, &ic->req);
    else if (x == X_REDUCE)
        own_Ireduce(&ic->mine, &ic->res, 1, ws_msg_dtype(), ws_later(), root, sc->shadow, &ic->req);
    else if (x == X_SCAN)
        own_Iscan(&ic->mine, &ic->res, 1, ws_msg_dtype(), ws_later(), sc->shadow, &ic->req);
    else
        own_Iallreduce(&ic->mine, &ic->res, 1, ws_msg_dtype(), ws_later(), sc->shadow, &ic->req);
    struct ws_rq rq = {.kind = WS_RQ_ICOLL, .fn = c->fn, .comm = c->comm, .ic = ic};
    if (ws_rq_add(req, &rq) < 0) {
        ic->next = w->deferred; /* untracked: finished later, not recorded */
        w->deferred = ic;
    }
}

void ws_icoll_done(struct ws_thread *w, struct ws_icoll *ic, struct ev_call *c)
{
    w->synced = 1;
    ic->e = ws_corr(c->t_enter);
    ic->l = ws_corr(c->t_leave);
    ic->site = c->th ? SITE(c->fn, c->cp) : 0;
    int done = 0;
    own_Test(&ic->req, &done, MPI_STATUS_IGNORE);
    if (!done) { /* its wait is a part of the call's, known later */
        ic->group = c->th && ic->waiter ? ws_group_join(w) : NULL;
        ic->next = w->deferred;
        w->deferred = ic;
        return;
    }
    if (ic->nnb)
        ws_neigh_latest(ic);
    if (ic->waiter && c->th)
        judge(w, ic->pattern, 1, ic->e, ic->l, &ic->res);
    ws_ic_put(w, ic);
}

/* Finish exchanges still in flight; those that are done are recorded against the call that
 * completed the user's request. block: wait for all (at finalize, every rank is there). */
void ws_poll_deferred(struct ws_thread *w, int block)
{
    struct ws_icoll **p = &w->deferred;
    while (*p) {
        struct ws_icoll *ic = *p;
        int done = 0;
        if (block)
            own_Wait(&ic->req, MPI_STATUS_IGNORE);
        else
            own_Test(&ic->req, &done, MPI_STATUS_IGNORE);
        if (!block && !done) {
            p = &ic->next;
            continue;
        }
        *p = ic->next;
        if (ic->nnb)
            ws_neigh_latest(ic);
        double wait = 0;
        if (ic->site && ic->waiter && isfinite(ic->res.e) && ic->res.rank != tardy_rank) {
            wait = ((ic->res.e < ic->l ? ic->res.e : ic->l) - ic->e) * ws_sample;
            if (ic->res.e > ic->l)
                atomic_fetch_add_explicit(&ws_violations, 1, memory_order_relaxed);
        }
        if (ic->group)
            ws_group_put(w, ic->group, ic->pattern, wait, &ic->res);
        else if (wait > 0)
            ws_record(w, ic->site, ic->pattern, wait, &ic->res);
        ws_ic_put(w, ic);
    }
}

int ws_clock_tick(struct ev_call *c, int rc)
{
    if (!ws_resync || rc != MPI_SUCCESS)
        return 0;
    struct ws_comm *sc = ws_comm_find(c->comm);
    if (!sc || !ws_clock_look(sc))
        return 0;
    if (c->th)
        c->t_leave = clk_now(); /* part of the call, not compute */
    return 1;
}
