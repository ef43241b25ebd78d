/* Wait states at completion calls (Wait*, Test*): the snapshot of the requests before the
 * call, the statuses tardy needs where the user ignores them, and what each completed request
 * means (a receive's piggyback, a synchronous send's answer, a cancelled send's piggyback
 * withdrawn, a nonblocking collective's exchange). */
#include "waits.h"

#include <stdlib.h>

#include "mpit/own/own.h"
#include "ws_match.h"

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
    struct ws_thread *w = ws_self;
    if (!w || i < 0 || i >= w->snap_n || w->snap[i].slot < 0)
        return;
    struct ws_rq_ref *ref = &w->snap[i];
    int cancelled = 0;
    switch (ref->rq.kind) {
    case WS_RQ_RECV:
    case WS_RQ_PRECV:
        if (ref->rq.kind == WS_RQ_RECV) {
            ws_rq_remove(ref);
        } else if (ref->rq.posted) { /* inactive until its next start */
            struct ws_rq rq = ref->rq;
            rq.posted = NULL;
            ws_rq_set(ref, &rq);
        }
        if (st != MPI_STATUS_IGNORE)
            own_Test_cancelled(st, &cancelled);
        if (!cancelled)
            ws_received(w, c, ref->rq.comm, st, ws_corr(c->t_enter), ref->rq.t_post,
                            ref->rq.posted);
        else
            ws_unpost(w, ref->rq.posted);
        break;
    case WS_RQ_CSEND:
        ws_rq_remove(ref);
        if (st != MPI_STATUS_IGNORE)
            own_Test_cancelled(st, &cancelled);
        if (cancelled)
            ws_send_cancelled(&ref->rq);
        break;
    case WS_RQ_ICOLL:
        ws_rq_remove(ref);
        ws_icoll_done(w, ref->rq.ic, c);
        break;
    case WS_RQ_SSEND:
    case WS_RQ_PSEND:
        if (ref->rq.kind == WS_RQ_SSEND)
            ws_rq_remove(ref);
        if (!ref->rq.ack)
            break;
        if (st != MPI_STATUS_IGNORE)
            own_Test_cancelled(st, &cancelled);
        if (cancelled && ref->rq.kind == WS_RQ_SSEND)
            ws_send_cancelled(&ref->rq);
        ws_ssend_done(w, ref->rq.ack, cancelled ? NULL : c);
        if (ref->rq.kind == WS_RQ_PSEND) { /* inactive again until its next start */
            struct ws_rq rq = ref->rq;
            rq.ack = NULL;
            ws_rq_set(ref, &rq);
        }
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
    struct ws_thread *w = ws_on ? ws_self : NULL;
    if (!w)
        return;
    w->snap_n = 0;
    if (w->deferred)
        ws_poll_deferred(w, 0);
    if (w->acks)
        ws_poll_acks(w, 0);
    if (w->ntakes)
        ws_takes_run(w, 0, c);
    ws_settle(w, SITE(c->fn, c->cp), c->th != NULL);
}
