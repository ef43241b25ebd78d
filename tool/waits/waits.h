/* Wait states online: the hooks the generated wrappers call. Every send is followed by a small
 * piggyback message (the sender's corrected enter time and its root-cause ledger) on a shadow
 * communicator; the receiver queues it when the receive completes and takes it after its own
 * next send (or at the end of its next receive, completion or collective call), off the path
 * of the messages. Collectives exchange the same record on the shadow communicator, blocking
 * ones in batches (recorded a few calls late). Patterns and root causes (docs/design.md 3.5,
 * 3.6) go into bounded per-thread tables; the path of one wait is docs/design.md 2.2.
 * A hook is a no-op when wait states are off (TARDY_WAITS=0) or the communicator has no
 * shadow (created inside the library, or by Comm_idup). */
#ifndef TARDY_WAITS_H
#define TARDY_WAITS_H

#include <mpi.h>
#include <stdint.h>

#include "tool/core/core.h"

/* The protocol runs (agreed by all ranks at init). */
extern int ws_on;

/* Called by every wrapper after ev_started: the compute interval that just ended joins the
 * rank's root-cause ledger. */
void ws_fold(struct ev_call *c);
static inline void ws_begin(struct ev_call *c)
{
    if (ws_on)
        ws_fold(c);
}

/* Pcontrol(0) turns counting off but not the protocol (a partner may still expect a
 * piggyback). When ev_enter declines a call, ws_quiet_enter says whether the wrapper must
 * still run its hooks, untimed and unrecorded (c->th is then NULL). */
int ws_quiet_enter(struct ev_call *c, unsigned fn);
void ws_quiet_leave(struct ev_call *c);

/* point-to-point */
void ws_send(struct ev_call *c, int rc);               /* after a send of any mode */
void ws_send_after(struct ev_call *c, int rc);         /* ... blocking: ws_fold, then ws_send */
void ws_sent(struct ev_call *c, int rc);               /* after a blocking MPI_Ssend */
void ws_isent(struct ev_call *c, MPI_Request req, int rc);   /* after MPI_I[bsr]send */
void ws_cancel(struct ev_call *c, MPI_Request req);    /* before MPI_Cancel */
void ws_recv_begin(struct ev_call *c, MPI_Comm comm, int source);  /* before MPI_Recv */
void ws_recv(struct ev_call *c, MPI_Comm comm, const MPI_Status *st, int rc);
void ws_irecv(struct ev_call *c, MPI_Comm comm, MPI_Request req, int rc);
void ws_pinit(struct ev_call *c, MPI_Request req, int rc);
void ws_start(struct ev_call *c, int n, const MPI_Request reqs[]);
void ws_reqfree(struct ev_call *c, MPI_Request req);
void ws_message(MPI_Comm comm, MPI_Message m);         /* after a matched probe */
MPI_Comm ws_message_comm(MPI_Message m);               /* before Mrecv/Imrecv */

/* completion (Wait*, Test*): snapshot the requests, substitute ignored statuses, then report
 * what completed and finish the call */
void ws_snap(struct ev_call *c, int n, const MPI_Request reqs[]);
MPI_Status *ws_status1(MPI_Status *user, MPI_Status *own);
MPI_Status *ws_statuses(MPI_Status *user, int n);
void ws_done(struct ev_call *c, int i, const MPI_Status *st);
void ws_done_all(struct ev_call *c, int n, const MPI_Status sts[]);
void ws_done_some(struct ev_call *c, int n, const int idx[], const MPI_Status sts[]);
void ws_complete(struct ev_call *c);

/* The same for the Fortran entry points (fortran.c): Fortran request handles, Fortran
 * statuses (`ignore`: the ignored-statuses value of the binding; ws_fstatuses substitutes a
 * private array for it), indices from 1 (ws_done_some_f: from base). */
void ws_snap_f(struct ev_call *c, int n, const MPI_Fint reqs[]);
void ws_start_f(struct ev_call *c, int n, const MPI_Fint reqs[]);
MPI_Fint *ws_fstatuses(MPI_Fint *user, const MPI_Fint *ignore, int n);
void ws_done_f(struct ev_call *c, int i, const MPI_Fint *fst, const MPI_Fint *ignore);
void ws_done_all_f(struct ev_call *c, int n, const MPI_Fint *fsts, const MPI_Fint *ignore);
void ws_done_some_f(struct ev_call *c, int n, const MPI_Fint idx[], int base,
                    const MPI_Fint *fsts, const MPI_Fint *ignore);

/* collectives (root = EV_NO_PEER when the collective has none) */
void ws_coll(struct ev_call *c, int root, int rc);
void ws_icoll(struct ev_call *c, int root, MPI_Request req, int rc);
/* After a blocking collective (and ws_coll): on a communicator of every world rank, the
 * periodic clock resynchronisation, every rank at the same collective (clock.c). Returns
 * 1 when it looked. */
int ws_clock_tick(struct ev_call *c, int rc);
void ws_neighbor(struct ev_call *c, int rc);             /* MPI_Neighbor_* */
void ws_ineighbor(struct ev_call *c, MPI_Request req, int rc);   /* MPI_Ineighbor_* */

/* communicators */
/* after a constructor made comm (dup_of: the communicator it duplicates, with its attributes;
 * MPI_COMM_NULL for any other constructor) */
void ws_comm_new(MPI_Comm comm, MPI_Comm dup_of, int rc);
void ws_comm_free(MPI_Comm comm);

/* one-sided: windows (their creation, after it; MPI_Win_free, after it, with the freed
 * handle), fences, and post/start/complete/wait (rma.c, pscw.c) */
void ws_win_new(struct ev_call *c, MPI_Comm comm, MPI_Win win, int rc);
void ws_win_free(struct ev_call *c, MPI_Win win, int rc);
void ws_win_fence(struct ev_call *c, MPI_Win win, int rc);
void ws_win_post(struct ev_call *c, MPI_Group group, MPI_Win win);     /* before MPI_Win_post */
void ws_win_synced(struct ev_call *c, int rc);                         /* after it */
void ws_win_start(struct ev_call *c, MPI_Group group, MPI_Win win);    /* before MPI_Win_start */
void ws_win_started(struct ev_call *c, MPI_Win win, int rc);
void ws_win_complete(struct ev_call *c, MPI_Win win);                  /* before MPI_Win_complete */
void ws_win_completed(struct ev_call *c, MPI_Win win, int rc);
void ws_win_waited(struct ev_call *c, MPI_Win win, int rc);   /* Win_wait, Win_test true */

/* Runtime: after MPI_Init (collective over MPI_COMM_WORLD), at finalize before the
 * reduction (collective), and the rows of this rank. */
void ws_init(MPI_Comm tool_comm, int multiple);   /* multiple: MPI_THREAD_MULTIPLE */
void ws_finish(MPI_Comm tool_comm);
struct rowset;
int ws_rows(struct rowset *rs, int rank);   /* 0, or -1 when memory ran out */
/* After the reduction (collective): name the regions that only other ranks ran. */
void ws_resolve(struct rowset *rs, MPI_Comm tool_comm);

#endif
