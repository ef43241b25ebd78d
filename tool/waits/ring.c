/* Wait states, the ring of each thread's protocol sends (piggybacks and answers): their
 * buffers and requests. A full turn never waits for a receiver: MPI lets a program post any
 * number of sends before their receives (to itself too, where MPICH completes a send only
 * when it is matched), so a turn whose sends are still in flight is retired whole and tested
 * at later turns until they complete; a fresh ring takes its place. Retired rings hold sends
 * whose user messages are still unreceived: the program's own outstanding sends bound them. */
#include "waits.h"

#include <stdlib.h>

#include "mpit/own/own.h"
#include "ws_data.h"

struct ws_ring {
    struct ws_wire wire[WS_RING];
    MPI_Request req[WS_RING];
    struct ws_ring *next;        /* the retired ones, newest first */
};

struct ws_ring *ws_ring_new(void)
{
    struct ws_ring *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    for (int i = 0; i < WS_RING; i++)
        r->req[i] = MPI_REQUEST_NULL;
    r->next = NULL;
    return r;
}

static int ring_done(struct ws_ring *r)
{
    int done = 0;
#pragma GCC diagnostic push /* GCC takes MPICH's MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    own_Testall(WS_RING, r->req, &done, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
    return done;
}

/* Free the retired rings whose sends are all complete. */
static void reap(struct ws_thread *w)
{
    for (struct ws_ring **p = &w->retired; *p;) {
        struct ws_ring *r = *p;
        if (ring_done(r)) {
            *p = r->next;
            free(r);
        } else {
            p = &r->next;
        }
    }
}

/* A new turn of w's ring starts at position pos: its slots must be free. The ring still in
 * flight is retired (without memory for a fresh one: waited for). */
static void turn(struct ws_thread *w, unsigned pos)
{
    w->ring_base = pos;
    reap(w);
    if (ring_done(w->ring))
        return;
    struct ws_ring *fresh = ws_ring_new();
    if (!fresh) {
        ws_ring_wait(w);
        return;
    }
    w->ring->next = w->retired;
    w->retired = w->ring;
    w->ring = fresh;
}

struct ws_wire *ws_ring_slot(struct ws_thread *w, MPI_Request **req)
{
    unsigned pos = w->ring_pos++, i = pos % WS_RING;
    if (!i && pos)
        turn(w, pos);
    *req = &w->ring->req[i];
    return &w->ring->wire[i];
}

void ws_ring_wait(struct ws_thread *w)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    for (struct ws_ring *r = w->retired; r; r = w->retired) {
        own_Waitall(WS_RING, r->req, MPI_STATUSES_IGNORE);
        w->retired = r->next;
        free(r);
    }
    own_Waitall(WS_RING, w->ring->req, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
}
