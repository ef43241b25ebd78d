/* Wait states of neighbourhood collectives (MPI_Neighbor_*, MPI_Ineighbor_*): a rank waits
 * for its latest in-neighbour, not for the whole communicator (Wait at N×N among the
 * neighbours). The shadow of a communicator with a topology (cartesian, graph, distributed
 * graph) gets the same neighbours (topo.c), so one neighbour allgather of the fixed-size
 * record on the shadow brings each rank its in-neighbours' enter times and ledgers. Memory:
 * one record per in-neighbour (a buffer per communicator, and one per nonblocking call in
 * flight); nothing grows with the size of the communicator. */
#include "waits.h"

#include <math.h>
#include <stdlib.h>

#include "mpit/own/own.h"
#include "ws_match.h"

#define REC ((int)sizeof(struct ws_msg))

/* The latest of n records (ties: the lower rank); e -inf when there is none. */
static void latest(const struct ws_msg *in, int n, struct ws_msg *res)
{
    res->e = -INFINITY;
    res->rank = -1;
    for (int i = 0; i < n; i++)
        if (ws_later_than(&in[i], res))
            *res = in[i];
}

void ws_neigh_latest(struct ws_icoll *ic)
{
    latest(ic->nb, ic->nnb, &ic->res);
    ic->nnb = 0;
}

static void clear(struct ws_msg *b, int n)
{
    for (int i = 0; i < n; i++)
        b[i].e = -INFINITY; /* MPI_PROC_NULL neighbours leave their record untouched */
}

/* This rank's record for a neighbourhood collective on comm, or NULL to skip (the same
 * decision on every rank of comm). */
static struct ws_comm *prepare(struct ws_thread *w, struct ev_call *c, struct ws_msg *mine)
{
    struct ws_comm *sc = ws_comm_find(c->comm);
    if (!sc || sc->nbr_in < 0 || !ws_sampled(sc))
        return NULL;
    ws_fill(w, mine, ws_corr(c->t_enter));
    return sc;
}

static void judge(struct ws_thread *w, struct ev_call *c, double e, const struct ws_msg *res)
{
    w->synced = 1;
    if (c->th && isfinite(res->e))
        ws_consider(w, WS_NXN, e, ws_corr(c->t_leave), res);
    w->best_w *= ws_sample; /* a sampled exchange stands for ws_sample collectives */
}

void ws_neighbor(struct ev_call *c, int rc)
{
    struct ws_thread *w = ws_on && rc == MPI_SUCCESS ? ws_me() : NULL;
    struct ws_msg mine, res;
    struct ws_comm *sc = w ? prepare(w, c, &mine) : NULL;
    if (sc) {
        clear(sc->nbuf, sc->nbr_in);
        own_Neighbor_allgather(&mine, REC, MPI_BYTE, sc->nbuf, REC, MPI_BYTE, sc->shadow);
        latest(sc->nbuf, sc->nbr_in, &res);
        judge(w, c, mine.e, &res);
        if (c->th)
            c->t_leave = clk_now(); /* the exchange is part of the call, not compute */
    }
    if (w)
        ws_settle(w, SITE(c->fn, c->cp), sc && c->th);
}

void ws_ineighbor(struct ev_call *c, MPI_Request req, int rc)
{
    struct ws_thread *w = ws_on && rc == MPI_SUCCESS ? ws_me() : NULL;
    struct ws_msg mine;
    struct ws_comm *sc = w ? prepare(w, c, &mine) : NULL;
    if (!sc)
        return;
    struct ws_icoll *ic = ws_ic_get(w);
    if (ic && ic->nb_cap < sc->nbr_in) {
        struct ws_msg *nb = realloc(ic->nb, (size_t)sc->nbr_in * sizeof *nb);
        if (nb) {
            ic->nb = nb;
            ic->nb_cap = sc->nbr_in;
        }
    }
    if (!ic || ic->nb_cap < sc->nbr_in) {
        /* The exchange must happen on every rank, nonblocking like the others': finish it
         * here with the communicator's buffer, unrecorded. */
        MPI_Request r;
        if (ic)
            ws_ic_put(w, ic);
        own_Ineighbor_allgather(&mine, REC, MPI_BYTE, sc->nbuf, REC, MPI_BYTE, sc->shadow,
                                 &r);
        own_Wait(&r, MPI_STATUS_IGNORE);
        return;
    }
    ic->mine = mine;
    ic->nnb = sc->nbr_in;
    clear(ic->nb, ic->nnb);
    ic->pattern = WS_NXN;
    ic->waiter = c->th != NULL;
    ic->site = 0;
    own_Ineighbor_allgather(&ic->mine, REC, MPI_BYTE, ic->nb, REC, MPI_BYTE, sc->shadow,
                             &ic->req);
    struct ws_rq rq = {.kind = WS_RQ_ICOLL, .fn = c->fn, .comm = c->comm, .ic = ic};
    if (ws_rq_add(req, &rq) < 0) {
        ic->next = w->deferred; /* untracked: finished later, not recorded */
        w->deferred = ic;
    }
}
