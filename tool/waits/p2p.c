/* Wait states, point-to-point transport: the piggyback each send posts on the shadow
 * communicator after the send, the answer a synchronous send waits for (Late Receiver:
 * blocking, or in the call completing an Issend or a started Ssend_init), and the taking of
 * piggybacks of completed receives (Late Sender), blocking, nonblocking and persistent, queued
 * and done later, off the path of the messages. */
#include "waits.h"

#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "ws_match.h"
#include "tool/base/base.h"

/* Problems of the protocol said once per process. */
static struct {
    atomic_int cancelled, freed_wildcard, queue_full;
} warned;

/* ---- sends ----------------------------------------------------------------------------- */

static int is_sync_send(unsigned fn)
{
    return fn == TARDY_FN_MPI_Ssend || fn == TARDY_FN_MPI_Issend || fn == TARDY_FN_MPI_Ssend_init;
}

/* Post the piggyback of a send entered at (raw) t_enter into dest's batch (the regions since
 * the last synchronisation with dest, where a new section of the ledger then begins); a
 * synchronous send also posts the receive of its answer (returned, or NULL). */
static struct ws_ack *post(struct ws_thread *w, const struct ws_comm *sc, MPI_Comm comm,
                           int dest, int tag, double t_enter, unsigned fn)
{
    struct ws_wire p;
    int sync = is_sync_send(fn), peer = pr_world(comm, dest);
    int bytes = ws_wire_pack(&w->led, peer, ws_corr(t_enter), sync, &p);
    ws_pb_add(sc->gen, sc->shadow, dest, tag, &p, bytes, sync, t_enter);
    ws_led_sync(&w->led, ws_rank_bit(peer), 1);
    if (!sync)
        return NULL;
    struct ws_ack *a = w->free_acks;
    if (a)
        w->free_acks = a->next;
    else if (!(a = malloc(sizeof *a)))
        return NULL; /* the answer stays unreceived: harmless on the answer communicator */
    a->site = 0;
    a->e = ws_corr(t_enter);
    a->l = 0;
    a->owner = w;
    a->group = NULL;
    /* a nonblocking one's wait is known when its request completes */
    atomic_store_explicit(&a->held, fn != TARDY_FN_MPI_Ssend, memory_order_relaxed);
    a->rank = peer;
    own_Irecv(&a->in, (int)sizeof a->in, MPI_BYTE, dest, tag, sc->ack, &a->req);
    a->next = w->acks;
    w->acks = a;
    return a;
}

/* After the user's send: the piggyback follows the message (its cost is then off the path
 * of the message; the receiver takes it once the message is in, and it always comes: the send
 * call has returned). */
void ws_send(struct ev_call *c, int rc)
{
    if (ws_self)
        ws_self->pb_pos = 0;
    if (!ws_on || c->dest < 0 || rc != MPI_SUCCESS)
        return;
    struct ws_comm *sc = ws_comm_find(c->comm);
    struct ws_thread *w = sc ? ws_me() : NULL;
    if (w && w->sync_ack) { /* the last Ssend or Issend failed: its answer is not awaited */
        atomic_store_explicit(&w->sync_ack->held, 0, memory_order_release);
        w->sync_ack = NULL;
    }
    struct ws_ack *a = w ? post(w, sc, c->comm, c->dest, c->tag, c->t_enter, c->fn) : NULL;
    if (!w)
        return;
    w->pb_pos = 1;
    if (a && (c->fn == TARDY_FN_MPI_Ssend || c->fn == TARDY_FN_MPI_Issend))
        w->sync_ack = a;
    if (w->ntakes)
        ws_takes_run(w, 1, c);
}

/* A blocking send folds its compute interval into the ledger after the call rather than
 * before (the wrappers call no ws_begin for it): nothing reads the ledger during the call, and
 * after it the fold is off the path to the partner, who may be waiting for the message. */
void ws_send_after(struct ev_call *c, int rc)
{
    if (c->th)
        ws_fold(c);
    ws_send(c, rc);
}

/* After a nonblocking send: the piggyback knows its user request (should it be cancelled);
 * an Issend's request leads to its answer when a Wait or Test completes it. */
void ws_isent(struct ev_call *c, MPI_Request req, int rc)
{
    struct ws_thread *w = ws_on ? ws_self : NULL;
    int pb = w ? w->pb_pos : 0;
    if (pb) {
        if (rc == MPI_SUCCESS)
            ws_pb_user(req);
        w->pb_pos = 0;
    }
    struct ws_ack *a = w ? w->sync_ack : NULL;
    if (!a)
        return;
    w->sync_ack = NULL;
    struct ws_rq rq = {.kind = WS_RQ_SSEND, .fn = c->fn, .dest = c->dest, .tag = c->tag,
                       .comm = c->comm, .ack = a, .user = req, .pb = pb};
    if (rc != MPI_SUCCESS || ws_rq_add(req, &rq) < 0)
        atomic_store_explicit(&a->held, 0, memory_order_release);
}

void ws_ssend_done(struct ws_thread *w, struct ws_ack *a, struct ev_call *c)
{
    if (c && c->th) {
        a->site = SITE(c->fn, c->cp);
        a->e = ws_corr(c->t_enter);
        a->l = ws_corr(c->t_leave);
        if (a->owner == w) /* the thread that finishes it */
            a->group = ws_group_join(w);
    } else {
        a->site = 0;
    }
    atomic_store_explicit(&a->held, 0, memory_order_release);
}

/* After a blocking synchronous send: its wait for the receiver is known once the answer
 * (the receive's post time) is in. */
void ws_sent(struct ev_call *c, int rc)
{
    struct ws_thread *w = ws_on && c->dest >= 0 && ws_comm_find(c->comm) ? ws_self : NULL;
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

/* An answer is in (done) or never will be: record the sender's wait, alone or as part of
 * the group of its completing call. */
static void finish_ack(struct ws_thread *w, struct ws_ack *a, int done)
{
    double wait = 0;
    if (done && a->site) {
        if (a->m.e > a->l)
            atomic_fetch_add_explicit(&ws_violations, 1, memory_order_relaxed);
        wait = (a->m.e < a->l ? a->m.e : a->l) - a->e;
        if (a->m.rank == tardy_rank)
            wait = 0;
    }
    if (a->group)
        ws_group_put(w, a->group, WS_LATE_RECEIVER, wait, &a->m);
    else if (wait > 0)
        ws_record(w, a->site, WS_LATE_RECEIVER, wait, &a->m);
    a->group = NULL;
}

/* At finalize, the answer to a synchronous send the program completed and tardy measures:
 * its receiver sent it before the barrier that precedes this drain, but MPI does not promise
 * that one test after the barrier finds it in (the barrier's messages may reach this rank by
 * way of other ranks first). Polled for until *end, ANSWER_GRACE seconds after the first
 * such answer missing: a receiver whose receive was freed while active cannot answer, and
 * the wait is then counted as unmeasured. */
#define ANSWER_GRACE 0.5
static int answer_due(struct ws_ack *a, double *end)
{
    int done = 0;
    if (*end == 0)
        *end = clk_now() + ANSWER_GRACE;
    while (!done && clk_now() < *end)
        own_Test(&a->req, &done, MPI_STATUS_IGNORE);
    if (!done)
        atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_ANSWERS], 1, memory_order_relaxed);
    return done;
}

void ws_poll_acks(struct ws_thread *w, int final)
{
    struct ws_ack **p = &w->acks;
    double end = 0;
    while (*p) {
        struct ws_ack *a = *p;
        int done = 0;
        if (!final && atomic_load_explicit(&a->held, memory_order_acquire)) {
            p = &a->next;
            continue;
        }
        own_Test(&a->req, &done, MPI_STATUS_IGNORE);
        if (!done && !final) {
            p = &a->next;
            continue;
        }
        if (!done && a->site && !atomic_load_explicit(&a->held, memory_order_acquire))
            done = answer_due(a, &end);
        if (!done) { /* never answered (its receive was freed or cancelled) */
            own_Cancel(&a->req);
            own_Wait(&a->req, MPI_STATUS_IGNORE);
        } else {
            ws_wire_unpack(&a->in, a->rank, &a->m);
        }
        if (atomic_load_explicit(&a->held, memory_order_acquire))
            a->site = 0; /* at finalize, never completed by the user */
        finish_ack(w, a, done);
        *p = a->next;
        a->next = w->free_acks;
        w->free_acks = a;
    }
}

/* ---- receives -------------------------------------------------------------------------- */

/* Answer the synchronous send of queued receive t from world rank source: when the receive
 * was posted, with the ledger of its call. */
static void answer(struct ws_thread *w, MPI_Comm ack, const struct ws_take *t, int source)
{
    MPI_Request *req;
    struct ws_wire *p = ws_ring_slot(w, &req);
    own_Isend(p, ws_wire_pack(&t->led, source, t->e_post, 0, p), MPI_BYTE, t->source, t->tag,
              ack, req);
}

/* Record the largest wait of the call whose piggybacks were taken. */
static void close_call(struct ws_thread *w)
{
    struct ws_callwait *cw = &w->cw;
    if (cw->open && cw->group) {
        ws_group_put(w, cw->group, cw->pattern, cw->best_w, &cw->msg[cw->best]);
    } else if (cw->open && cw->best_w > 0) {
        if (cw->pattern == WS_LATE_SENDER)
            ws_ls_hold(w, cw->site, cw->best_w, &cw->msg[cw->best], cw->led);
        else
            ws_record_led(w, cw->site, cw->pattern, cw->best_w, &cw->msg[cw->best], cw->led);
    }
    cw->open = 0;
}

/* A wait of the call against record m (the spare cw->msg: no copy). */
static void consider(struct ws_callwait *cw, int pattern, double wait, const struct ws_msg *m)
{
    if (wait > cw->best_w && m->rank != tardy_rank) {
        cw->best_w = wait;
        cw->pattern = pattern;
        if (m != &cw->msg[!cw->best])
            cw->msg[!cw->best] = *m;
        cw->best = !cw->best;
    }
}

/* Queued receive i of w (0: the oldest). */
static struct ws_take *take_at(struct ws_thread *w, int i)
{
    return &w->takes[(w->take_head + i) & (w->take_cap - 1)];
}

/* Take the piggyback of queued receive t (Late Sender: the sender's enter time): 1, or 0
 * while its sender's batch is not in (block, at finalize: waited for). */
static int take(struct ws_thread *w, const struct ws_take *t, int block)
{
    MPI_Comm shadow, ack;
    if (t->blind) { /* dropped whenever it comes: the receive may never be matched */
        ws_ps_skip(t->gen, t->source, t->tag);
        return 1;
    }
    if (ws_comm_pair(t->comm, t->gen, &shadow, &ack) < 0) { /* freed, too many kept */
        atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_RECEIVES], 1, memory_order_relaxed);
        return 1;
    }
    struct ws_wire p;
    block = block || ws_multiple;
    if (!ws_ps_take(t->gen, shadow, t->source, t->tag, &p, block))
        return 0;
    struct ws_callwait *cw = &w->cw;
    if (cw->open && cw->call != t->call) /* held before this message is compared with it */
        close_call(w);
    struct ws_msg *m = &cw->msg[!cw->best];
    int flags = ws_wire_unpack(&p, t->world, m);
    ws_ls_check(w, m->e);
    if (flags & WS_WIRE_SYNC)
        answer(w, ack, t, t->world);
    if (!t->site)
        return 1;
    if (!cw->open) { /* field by field: the record and the chains are read once set */
        cw->open = 1;
        cw->pattern = 0;
        cw->call = t->call;
        cw->site = t->site;
        cw->group = t->group;
        cw->best_w = 0;
        cw->led = &t->led; /* copied only if the call stays open (ws_takes_run) */
        cw->nchain = 0;
    }
    ws_chain_add(cw->chain, &cw->nchain, m, flags & WS_WIRE_CHAIN);
    if (m->e > t->l)
        atomic_fetch_add_explicit(&ws_violations, 1, memory_order_relaxed);
    consider(cw, WS_LATE_SENDER, (m->e < t->l ? m->e : t->l) - t->e, m);
    if (t->other_w > 0)
        consider(cw, t->other_pattern, t->other_w, &t->other);
    return 1;
}

void ws_takes_look(struct ws_thread *w, int all, struct ev_call *c)
{
    int n = 0, block = all > 1;
    while (n < w->ntakes) {
        struct ws_take *t = take_at(w, n);
        if (!all && t->call == w->calls && !t->alone)
            break;
        if (t->alone) /* a call of its own: its call number may be another thread's */
            close_call(w);
        if (!take(w, t, block))
            break;
        if (t->alone)
            close_call(w);
        ws_comm_queued(t->gen, -1);
        n++;
    }
    w->take_probe = w->ntakes - n + WS_PB_RECS < WS_TAKES_MAX ? w->ntakes - n + WS_PB_RECS
                                                              : WS_TAKES_MAX;
    if (!n)
        return;
    const struct ws_take *next = n < w->ntakes ? take_at(w, n) : NULL;
    if (w->cw.open && (w->cw.call == w->calls || (next && next->call == w->cw.call))) {
        if (w->cw.led != &w->cw.own) { /* more may come: its take's slot is reused */
            w->cw.own = *w->cw.led;
            w->cw.led = &w->cw.own;
        }
    } else {
        close_call(w);
    }
    w->take_head = (w->take_head + n) & (w->take_cap - 1);
    w->ntakes -= n;
    ws_comm_unkeep();
    if (c && c->th)
        c->t_leave = clk_now(); /* taking piggybacks is part of the call, not compute */
}

void ws_takes_group(struct ws_thread *w, struct ws_group *g)
{
    int any = 0;
    for (int i = w->ntakes - 1; i >= 0 && take_at(w, i)->call == w->calls; i--)
        if (take_at(w, i)->site) {
            take_at(w, i)->group = g;
            any = 1;
        }
    if (w->cw.open && w->cw.call == w->calls) { /* taken already (a send of the call) */
        w->cw.group = g;
        any = 1;
    }
    if (any)
        g->left++;
}

int ws_takes_stash(struct ws_thread *w)
{
    struct ws_take *t = w->ntakes ? take_at(w, w->ntakes - 1) : NULL;
    if (t && t->call == w->calls && t->site) {
        t->other_pattern = w->best_pattern;
        t->other_w = w->best_w;
        t->other = w->best;
        return 1;
    }
    if (w->cw.open && w->cw.call == w->calls) { /* taken already (a send of the call) */
        consider(&w->cw, w->best_pattern, w->best_w, &w->best);
        return 1;
    }
    return 0;
}

/* The end of a call: its largest wait is recorded (or joins the call's group, or waits for the
 * call's piggybacks still to be taken); after a synchronisation point with every rank of a
 * group the ledger starts over; the own time of a call that received is waiting, in no
 * ledger. */
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
    if (w->cut) /* after the call: each receive of it was judged against the ledger before */
        ws_led_sync(&w->led, w->cut, 0);
    if (w->synced)
        ws_led_reset(&w->led);
    if (w->synced || w->received)
        w->prev_site = 0; /* this call's own time belongs to the interval that ended */
    ws_pb_tick();
    w->best_w = 0;
    w->synced = w->received = 0;
    w->cut = 0;
    w->calls++;
}

static struct ws_take *next_take(struct ws_thread *w);

void ws_takes_release(struct ws_thread *w, struct ws_posted *rel)
{
    for (struct ws_posted *p = w ? rel : NULL; p; p = p->next) { /* after the queued ones */
        struct ws_take *t = next_take(w);
        *t = p->take;
        t->alone = 1;
        w->ntakes++;
        ws_comm_queued(t->gen, 1);
    }
    ws_recvq_free(rel);
}

void ws_unpost(struct ws_thread *w, struct ws_posted *p)
{
    if (p)
        ws_takes_release(w, ws_recvq_drop(p));
}

/* Twice the room for queued receives, in order from 0 (-1: at its largest, or no memory). */
static int grow_takes(struct ws_thread *w)
{
    int cap = w->take_cap * 2;
    struct ws_take *t = cap <= WS_TAKES_MAX ? malloc((size_t)cap * sizeof *t) : NULL;
    if (!t)
        return -1;
    for (int i = 0; i < w->ntakes; i++)
        t[i] = *take_at(w, i);
    free(w->takes);
    w->takes = t;
    w->take_cap = cap;
    w->take_head = 0;
    return 0;
}

/* The next free slot of the queue. Full at its largest (receives waiting that long for their
 * senders' batches): the oldest receive is not judged, its record dropped when it comes. */
static struct ws_take *next_take(struct ws_thread *w)
{
    if (w->ntakes == w->take_cap && grow_takes(w) < 0) {
        struct ws_take *t = take_at(w, 0);
        ws_ps_skip(t->gen, t->source, t->tag); /* still counted queued: its record is to come */
        atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_RECEIVES], 1, memory_order_relaxed);
        tardy_warn_once(&warned.queue_full, "more than %d receives waited for their senders' "
                        "timestamps; the oldest are not judged", WS_TAKES_MAX);
        w->take_head = (w->take_head + 1) & (w->take_cap - 1);
        w->ntakes--;
    }
    return take_at(w, w->ntakes);
}

/* Queue t, filled in at next_take(w), unless the posting order holds it back; the held ones
 * it frees are taken right after it. */
static void queue(struct ws_thread *w, struct ws_posted *posted, const struct ws_take *t)
{
    struct ws_posted *rel;
    if (!ws_recvq_done(posted, t, &rel)) {
        w->ntakes++;
        ws_comm_queued(t->gen, 1);
    }
    if (rel)
        ws_takes_release(w, rel);
}

/* The fields of take t known when its call began: a receive on comm (its shadow's number gen)
 * in call c, entered at e and posted at e_post (corrected). */
static void take_begin(const struct ws_thread *w, const struct ev_call *c, MPI_Comm comm,
                       unsigned gen, double e, double e_post, struct ws_take *t)
{
    t->blind = t->alone = 0;
    t->comm = comm;
    t->gen = gen;
    t->call = w->calls;
    t->site = c->th ? SITE(c->fn, c->cp) : 0;
    t->e_post = e_post;
    t->e = e;
    t->led = w->led;
    t->other_w = 0;
    t->group = NULL;
}

/* The rest of take t once its receive completed with status st (its source's world rank as
 * of world_comm, unless cut: known, and the ledger cut for it already), then t queued. */
static void take_end(struct ws_thread *w, const struct ev_call *c, const MPI_Status *st,
                     MPI_Comm world_comm, struct ws_posted *posted, struct ws_take *t, int cut)
{
    w->received = 1;
    t->source = st->MPI_SOURCE;
    t->tag = st->MPI_TAG;
    t->l = ws_corr(c->t_leave);
    if (!cut) {
        t->world = pr_world(world_comm, st->MPI_SOURCE);
        w->cut |= ws_rank_bit(t->world);
    }
    queue(w, posted, t);
}

void ws_received(struct ws_thread *w, struct ev_call *c, MPI_Comm comm, const MPI_Status *st,
                 double e, double e_post, struct ws_posted *posted)
{
    /* a nonblocking receive's shadow is the one it was posted on (its communicator may be
     * freed since, the shadow kept); a blocking one's is comm's live one */
    struct ws_comm *sc = posted ? NULL : ws_comm_find(comm);
    unsigned gen = posted ? posted->gen : sc ? sc->gen : 0;
    MPI_Comm shadow, ack;
    int kept = 0;
    if (st == MPI_STATUS_IGNORE || st->MPI_SOURCE < 0 || !gen ||
        (!sc && (kept = ws_comm_pair(comm, gen, &shadow, &ack)) < 0)) {
        ws_unpost(w, posted);
        return;
    }
    struct ws_take *t = next_take(w);
    take_begin(w, c, comm, gen, e, e_post, t);
    take_end(w, c, st, kept ? shadow : comm, posted, t, 0);
}

/* A matched probe takes its message out of matching: its receive has its place in the
 * posting order from then on (its envelope is not known here: any source and tag), until
 * the MPI_Mrecv or MPI_Imrecv that follows in the same wrapper (ws_message_comm) takes it. */
static _Thread_local struct ws_posted *probed;

void ws_message(MPI_Comm comm, MPI_Message m)
{
    struct ws_comm *sc = ws_on ? ws_comm_find(comm) : NULL;
    if (!sc || m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return;
    struct ws_posted *p = ws_recvq_post(sc->gen, MPI_ANY_SOURCE, MPI_ANY_TAG);
    if (ws_msgmap_put(m, comm, p) < 0)
        ws_unpost(ws_me(), p);
}

MPI_Comm ws_message_comm(MPI_Message m)
{
    return ws_on ? ws_msgmap_take(m, &probed) : MPI_COMM_NULL;
}

/* The place of the message the running MPI_Mrecv or MPI_Imrecv receives (NULL: none). */
static struct ws_posted *take_probed(const struct ev_call *c)
{
    struct ws_posted *p = NULL;
    if (c->fn == TARDY_FN_MPI_Mrecv || c->fn == TARDY_FN_MPI_Imrecv) {
        p = probed;
        probed = NULL;
    }
    return p;
}

/* A blocking receive's take is filled before its call, while it may wait for its message,
 * in the next free slot of the queue: a look at the queue takes from its front and leaves
 * that slot where it is. What only the status tells is filled in after (ws_recv). With its
 * source given, and nothing but the receive to be judged against the ledger in the call (no
 * collective exchange or answer in flight: nothing else is recorded at its end), the ledger
 * is cut for the source now as well (after the take's copy), and put back if it fails. */
void ws_recv_begin(struct ev_call *c, MPI_Comm comm, int source)
{
    struct ws_thread *w = ws_on ? ws_me() : NULL;
    struct ws_comm *sc = w ? ws_comm_find(comm) : NULL;
    if (!sc || !sc->gen)
        return;
    double e = ws_corr(c->t_enter);
    struct ws_take *t = w->pre = next_take(w);
    take_begin(w, c, comm, sc->gen, e, e, t);
    w->pre_cut = source >= 0 && !w->deferred && !w->acks && !w->group && !w->cut;
    if (w->pre_cut) {
        t->world = pr_world(comm, source);
        ws_led_sync(&w->led, ws_rank_bit(t->world), 0);
    }
}

void ws_recv(struct ev_call *c, MPI_Comm comm, const MPI_Status *st, int rc)
{
    struct ws_posted *posted = ws_on ? take_probed(c) : NULL;
    struct ws_thread *w = ws_on ? ws_me() : NULL;
    struct ws_take *pre = w ? w->pre : NULL;
    int cut = pre && w->pre_cut;
    if (w)
        w->pre = NULL; /* unqueued, its slot is the next one again */
    if (!w || rc != MPI_SUCCESS) {
        if (cut)
            w->led = pre->led; /* nothing received: no cut */
        ws_unpost(w, posted); /* its message stays unreceived */
        return;
    }
    if (w->ntakes)
        ws_takes_run(w, 0, c);
    if (pre && !posted) {
        if (st != MPI_STATUS_IGNORE && st->MPI_SOURCE >= 0)
            take_end(w, c, st, comm, NULL, pre, cut);
        else if (cut)
            w->led = pre->led;
    } else {
        double e = ws_corr(c->t_enter);
        ws_received(w, c, comm, st, e, e, posted);
    }
    if (w->deferred)
        ws_poll_deferred(w, 0);
    if (w->acks)
        ws_poll_acks(w, 0);
    ws_settle(w, SITE(c->fn, c->cp), c->th != NULL);
}

/* The place of a receive from source with tag on sc in the posting order (NULL: none). */
static struct ws_posted *posted(const struct ws_comm *sc, int source, int tag)
{
    return source == MPI_PROC_NULL ? NULL : ws_recvq_post(sc->gen, source, tag);
}

void ws_irecv(struct ev_call *c, MPI_Comm comm, MPI_Request req, int rc)
{
    struct ws_posted *probe = ws_on ? take_probed(c) : NULL;
    struct ws_comm *sc = ws_on && rc == MPI_SUCCESS ? ws_comm_find(comm) : NULL;
    if (!sc) {
        ws_unpost(ws_me(), probe);
        return;
    }
    struct ws_rq rq = {.kind = WS_RQ_RECV, .fn = c->fn, .dest = c->src, .tag = c->tag,
                       .comm = comm, .t_post = c->th ? ws_corr(c->t_enter) : 0};
    rq.posted = c->fn == TARDY_FN_MPI_Imrecv ? probe : posted(sc, c->src, c->tag);
    if (ws_rq_add(req, &rq) < 0)
        ws_unpost(ws_me(), rq.posted);
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
        if (ws_rq_find(reqs[i], &ref) < 0)
            continue;
        struct ws_rq rq = ref.rq;
        if (rq.kind == WS_RQ_PSEND) {
            struct ws_comm *sc = ws_comm_find(rq.comm);
            rq.ack = sc ? post(w, sc, rq.comm, rq.dest, rq.tag, c->t_enter, rq.fn) : NULL;
            if (rq.ack) /* a synchronous one: its answer waits for the completing call */
                ws_rq_set(&ref, &rq);
        } else if (rq.kind == WS_RQ_PRECV) {
            struct ws_comm *sc = ws_comm_find(rq.comm);
            rq.t_post = c->th ? ws_corr(c->t_enter) : 0;
            rq.posted = sc ? posted(sc, rq.dest, rq.tag) : NULL;
            ws_rq_set(&ref, &rq);
        }
    }
}

/* Before MPI_Cancel of a nonblocking send whose record still waits in its batch: should the
 * cancel succeed, the record must go too (ws_send_cancelled). */
void ws_cancel(struct ev_call *c, MPI_Request req)
{
    (void)c;
    struct ws_rq_ref ref;
    if (!ws_on || req == MPI_REQUEST_NULL || ws_rq_find(req, &ref) == 0)
        return;
    if (ws_pb_waiting(req)) {
        struct ws_rq rq = {.kind = WS_RQ_CSEND, .user = req, .pb = 1};
        ws_rq_add(req, &rq);
    }
}

void ws_send_cancelled(const struct ws_rq *rq)
{
    if (!rq->pb || !ws_pb_withdraw(rq->user)) {
        tardy_warn_once(&warned.cancelled, "a send was cancelled after its timestamp left; "
                        "waits between these two ranks may be misattributed");
    }
}

void ws_reqfree(struct ev_call *c, MPI_Request req)
{
    (void)c;
    struct ws_rq_ref ref;
    if (!ws_on || !atomic_load_explicit(&ws_rq_live, memory_order_relaxed) ||
        ws_rq_find(req, &ref) < 0)
        return;
    ws_rq_remove(&ref);
    if (ref.rq.ack) { /* a synchronous send freed while active: its wait is not measured */
        struct ws_thread *w = ws_me();
        if (w)
            ws_ssend_done(w, ref.rq.ack, NULL);
    } else if (ref.rq.kind == WS_RQ_ICOLL) {
        /* The exchange still completes; it is finished later and not recorded. */
        struct ws_thread *w = ws_me();
        ref.rq.ic->site = 0;
        if (w) {
            ref.rq.ic->next = w->deferred;
            w->deferred = ref.rq.ic;
        }
    } else if (ref.rq.kind == WS_RQ_RECV || ref.rq.posted) {
        /* A receive freed while active: its piggyback is taken blind, in its turn, when source
         * and tag are known; a wildcard one cannot be matched. */
        struct ws_comm *sc = ws_comm_find(ref.rq.comm);
        struct ws_thread *w = ws_me();
        if (w && sc && ref.rq.dest >= 0 && ref.rq.tag >= 0) {
            struct ws_take *t = next_take(w);
            *t = (struct ws_take){.comm = ref.rq.comm, .gen = sc->gen, .source = ref.rq.dest,
                                  .tag = ref.rq.tag, .blind = 1, .call = w->calls};
            queue(w, ref.rq.posted, t);
            return;
        }
        ws_unpost(w, ref.rq.posted);
        if (sc && ref.rq.dest != MPI_PROC_NULL) {
            tardy_warn_once(&warned.freed_wildcard, "a wildcard receive was freed while active; "
                            "waits on its communicator may be misattributed");
        }
    }
}
