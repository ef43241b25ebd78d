/* Wait states, layer 4 of 5: matching. Point-to-point piggybacks and their taking, the end of
 * a call (p2p.c), completion calls (complete.c, fortran.c), collectives (coll.c),
 * neighbourhood collectives (neigh.c), one-sided communication (rma.c, pscw.c). */
#ifndef TARDY_WS_MATCH_H
#define TARDY_WS_MATCH_H

#include "ws_exchange.h"

/* ---- point-to-point (p2p.c): piggybacks sent, receives' piggybacks taken, calls settled ---- */
/* Record the largest wait of the call at site, reset the ledger after a sync point. */
void ws_settle(struct ws_thread *w, uint64_t site, int record);
/* A receive on comm completed in call c (NULL th: quiet) with status st; e: c's corrected
 * enter, e_post: when the receive was posted (corrected), posted: its place in the posting
 * order (NULL: a blocking one). Queues the taking of its piggyback. (p2p.c) */
void ws_received(struct ws_thread *w, struct ev_call *c, MPI_Comm comm, const MPI_Status *st,
                 double e, double e_post, struct ws_posted *posted);
/* Take the held receives chain rel (recvq.c) freed, after the queued ones (w NULL: give
 * them back untaken). */
void ws_takes_release(struct ws_thread *w, struct ws_posted *rel);
/* Receive p (NULL: none) will take no piggyback: give up its place, take what that frees. */
void ws_unpost(struct ws_thread *w, struct ws_posted *p);
/* A nonblocking send was cancelled: withdraw its record from its batch (rq->user), or warn
 * once when it has left. (p2p.c) */
void ws_send_cancelled(const struct ws_rq *rq);
/* Take the queued piggybacks (answering synchronous sends, recording Late Sender waits) in
 * order up to the first whose sender's batch is not in: all (1), or those of calls before the
 * current one (0), or all waiting for the batches (2, at finalize once every rank sent its
 * batches); c: the current call, whose leave time then includes the taking (NULL outside
 * a call: looked at however few were queued since the last look). */
void ws_takes_look(struct ws_thread *w, int all, struct ev_call *c);
/* The queue is looked at again (which asks MPI for batches when a record is missing) once it
 * has grown by a batch: a sender's batch leaves once it holds WS_PB_RECS records, so one look
 * sooner mostly finds its next batch not sent yet. MPI_Comm_free (no call c) looks at once: a
 * shadow is kept while receives on it are queued. This test is inline: most calls skip. */
static inline void ws_takes_run(struct ws_thread *w, int all, struct ev_call *c)
{
    if (w->ntakes < w->take_probe && all < 2 && !ws_multiple && c)
        return;
    ws_takes_look(w, all, c);
}
/* At the end of a call with group g: its queued piggybacks are a part of g. */
void ws_takes_group(struct ws_thread *w, struct ws_group *g);
/* At the end of a call with its largest other wait in w->best: 1 when it waits for the
 * call's queued piggybacks, to be recorded with them (the call counts its largest wait). */
int ws_takes_stash(struct ws_thread *w);

/* ---- completion calls (complete.c) ---- */
/* Room for the snapshot of n requests of a completion call (NULL: nothing to snapshot). */
struct ws_rq_ref *ws_snap_room(int n);

/* ---- collectives (coll.c) ---- */
/* A nonblocking collective's request completed in call c (NULL: at finalize). */
void ws_icoll_done(struct ws_thread *w, struct ws_icoll *ic, struct ev_call *c);
void ws_poll_deferred(struct ws_thread *w, int block);
/* Answers to synchronous sends: finish those that arrived (at finalize: cancel the rest). */
void ws_poll_acks(struct ws_thread *w, int final);
/* A nonblocking synchronous send's request completed in call c (NULL th: quiet), or was
 * freed or cancelled (c NULL): its answer is recorded against c once it is in. */
void ws_ssend_done(struct ws_thread *w, struct ws_ack *a, struct ev_call *c);

struct ws_icoll *ws_ic_get(struct ws_thread *w);   /* NULL: out of memory */
void ws_ic_put(struct ws_thread *w, struct ws_icoll *ic);

/* ---- neighbourhood collectives (neigh.c) ---- */
/* The exchange of a nonblocking one is complete: its latest in-neighbour into ic->res. */
void ws_neigh_latest(struct ws_icoll *ic);

/* Is this collective (fence, neighbourhood collective) on sc measured? Every one, or one
 * in ws_sample: the same answer on every rank. (coll.c) */
int ws_sampled(struct ws_comm *sc);

/* ---- one-sided communication (rma.c: windows, fences; pscw.c) ---- */
struct ws_epoch;
struct ws_win {
    _Atomic uint64_t key;       /* window handle + 2, 0 empty, 1 removed */
    struct ws_comm sc;          /* the shadow of the window's communicator, its fence batch */
    MPI_Group group;            /* the window's group (post and start name ranks in it) */
    struct ws_epoch *access, *exposure;   /* post/start/complete/wait (NULL: none yet) */
};
struct ws_win *ws_win_find(MPI_Win win);
/* The window goes away (or finalize): judge its epochs, blocking, and release them. */
void ws_pscw_close(struct ws_win *ww);
void ws_rma_fini(void);   /* at finalize (collective): every window still alive */

#endif
