/* Wait states, the room's top: the hooks that start and finish the protocol (init, finalize,
 * the rows at the end), quiet calls under MPI_Pcontrol(0), communicators made and freed. The
 * layers below are listed in tool/README.md. */
#include "waits.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"
#include "mpit/own/own.h"
#include "ws_collect.h"

static int ws_used;    /* wait states were on in this run */


/* ---- quiet calls (under MPI_Pcontrol(0)) ----------------------------------------------- */

/* Inside a quiet call: the wrappers it reaches (the MPI library's Fortran binding calling C,
 * QMPI's entry points) run no hooks. */
static _Thread_local int quiet_busy;

int ws_quiet_enter(struct ev_call *c, unsigned fn)
{
    /* While tardy counts as a QMPI tool, its QMPI entry point below runs the hooks. */
    if (!ws_on || quiet_busy || (ev_self && ev_self->busy) ||
        (atomic_load_explicit(&ev_on, memory_order_relaxed) & EV_QMPI))
        return 0;
    quiet_busy = 1;
    c->th = NULL;
    c->fn = fn;
    c->cp = 0;
    c->dest = c->src = c->root = EV_NO_PEER;
    c->tag = -1;
    c->comm = MPI_COMM_NULL;
    c->sent = c->recv = 0;
    c->t_enter = c->t_leave = clk_now();
    return 1;
}

void ws_quiet_leave(struct ev_call *c)
{
    (void)c;
    quiet_busy = 0;
}
/* ---- communicators --------------------------------------------------------------------- */

void ws_comm_new(MPI_Comm comm, MPI_Comm dup_of, int rc)
{
    if (ws_on && rc == MPI_SUCCESS && comm != MPI_COMM_NULL)
        ws_comm_add(comm, dup_of);
}

void ws_comm_free(MPI_Comm comm)
{
    struct ws_comm *sc = ws_on ? ws_comm_find(comm) : NULL;
    if (!sc)
        return;
    /* this rank's batches on it leave; its receives on it whose senders' batches are not in
     * keep its shadow (MPI_Comm_free need not wait for the other ranks) */
    ws_pb_flush(sc->gen);
    if (ws_self && ws_self->ntakes)
        ws_takes_run(ws_self, 1, NULL);
    ws_batch_close(sc);
    ws_comm_remove(comm);
}

/* ---- start and finish ------------------------------------------------------------------ */

/* TARDY_TEST_CLOCK_SHIFT="rank:seconds[:rate]": that rank's raw clock runs ahead by seconds
 * and gains rate seconds per second from MPI_Init on. */
static void test_shift(void)
{
    char *end, *end2;
    long rank = strtol(cfg.test_clock_shift, &end, 10);
    if (end == cfg.test_clock_shift || *end != ':')
        return;
    double s = strtod(end + 1, &end2), rate = *end2 == ':' ? strtod(end2 + 1, NULL) : 0;
    if (rank == tardy_rank && isfinite(s) && isfinite(rate))
        ws_clock_test(s, rate);
}

void ws_init(MPI_Comm tool_comm, int multiple)
{
    int want = cfg.enable && cfg.waits;
    if (want)
        test_shift();
    ws_clock_period(cfg.waits_resync_ms / 1000.0);
    /* MPI_COMM_WORLD's shadow: every rank can make it, agreed in the clocks' reduction (one
     * collective fewer at MPI_Init; a rank that cannot turns wait states off everywhere) */
    struct ws_comm_new world;
    if (want)
        ws_comm_begin(MPI_COMM_WORLD, &world);
    if (!ws_clock_start(tool_comm, want && world.ok[0] && world.ok[2], &multiple)) {
        if (want)
            ws_comm_drop(&world);
        return;
    }
    ws_hotspot_permille = cfg.waits_hotspot * 10;
    ws_multiple = multiple;
    ws_sample = cfg.waits_sample;
    ws_keys_init();
    ws_wire_init();
    int all[3] = {1, world.ok[1], 1};
    ws_comm_start(MPI_COMM_WORLD, &world, all); /* no attributes on it yet */
    /* Made now, not at its first use: the MPI library's memory for the copies would show at
     * whichever of the program's calls ran the progress engine meanwhile. */
    ws_comm_find(MPI_COMM_WORLD);
    ws_comm_add(MPI_COMM_SELF, MPI_COMM_NULL);
    ws_on = ws_used = 1;
}

int ws_used_in_run(void)
{
    return ws_used;
}

int ws_rows(struct rowset *rs, int rank)
{
    return ws_used ? ws_collect(rs, rank) : 0;
}

static void take_all(struct ws_thread *w, void *arg)
{
    (void)arg;
    ws_takes_run(w, 2, NULL);
}

static void drain(struct ws_thread *w, void *arg)
{
    (void)arg;
    ws_ls_flush(w);
    ws_poll_deferred(w, 1);
    ws_ring_wait(w);
}

static void drain_acks(struct ws_thread *w, void *arg)
{
    (void)arg;
    ws_poll_acks(w, 1);
}

void ws_finish(MPI_Comm tool_comm)
{
    if (!ws_on)
        return;
    quiet_busy = 1; /* tardy's own calls below reach its QMPI entry points: no hooks there */
    ws_pb_flush(0); /* every rank's batches leave before any rank waits for one */
    ws_takes_release(ws_me(), ws_recvq_flush()); /* held for receives never completed */
    ws_for_each_thread(take_all, NULL); /* before the batches take their shadows */
    ws_comm_each(ws_batch_close);
    ws_rma_fini();
    ws_batch_drain(ws_me(), 1);
    ws_for_each_thread(drain, NULL);
    ws_clock_end();
    yw_barrier(tool_comm); /* every rank is past its takes: all answers have been sent */
    ws_for_each_thread(drain_acks, NULL);
    ws_comm_drop_batches(); /* those of receives never judged (freed ones, a full queue) */
    ws_on = 0;
    quiet_busy = 0;
    ws_comm_fini();
    ws_pb_fini();
    ws_ps_fini();
    ws_wire_fini();
    ws_recvq_fini();
}
