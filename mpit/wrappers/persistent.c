/* The persistent-request table: open addressing under one lock. Persistent requests are few
 * and long-lived; the table holds PST_SLOTS of them, further ones are started uncounted (one
 * warning). */
#include "persistent.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "tool/base/base.h"

#define PST_SLOTS 4096

struct pst {
    MPI_Request req;
    int used;       /* 0 empty, 1 in use, 2 removed (probe on) */
    int send;       /* 1: bytes are sent to peer, 0: received from peer */
    int peer, tag;
    MPI_Comm comm;
    int64_t bytes;
};

static struct {
    struct pst table[PST_SLOTS];
    pthread_mutex_t lock;
    atomic_int ever;       /* a persistent request was made: before, starts need no lock */
    atomic_int full_warned;
} persist = {.lock = PTHREAD_MUTEX_INITIALIZER};

static unsigned slot_of(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> 40) % PST_SLOTS;
}

/* The slot holding r, or NULL; with the lock held. */
static struct pst *find(MPI_Request r)
{
    unsigned s = slot_of(r);
    for (unsigned i = 0; i < PST_SLOTS; i++, s = (s + 1) % PST_SLOTS) {
        if (persist.table[s].used == 0)
            return NULL;
        if (persist.table[s].used == 1 && persist.table[s].req == r)
            return &persist.table[s];
    }
    return NULL;
}

void pst_add(MPI_Request r, const struct ev_call *c, int64_t bytes)
{
    if (r == MPI_REQUEST_NULL)
        return;
    pthread_mutex_lock(&persist.lock);
    struct pst *p = find(r);
    unsigned s = slot_of(r);
    for (unsigned i = 0; !p && i < PST_SLOTS; i++, s = (s + 1) % PST_SLOTS)
        if (persist.table[s].used != 1)
            p = &persist.table[s];
    if (p) {
        atomic_store_explicit(&persist.ever, 1, memory_order_relaxed);
        int send = c->dest != EV_NO_PEER;
        *p = (struct pst){.req = r, .used = 1, .send = send, .peer = send ? c->dest : c->src,
                          .tag = c->tag, .comm = c->comm, .bytes = bytes};
    }
    pthread_mutex_unlock(&persist.lock);
    if (!p)
        tardy_warn_once(&persist.full_warned, "more than %d persistent requests at once; "
                        "further ones are started without counting their bytes", PST_SLOTS);
}

void pst_start(struct ev_call *c, int n, const MPI_Request *reqs)
{
    if (!reqs || !atomic_load_explicit(&persist.ever, memory_order_relaxed))
        return;
    pthread_mutex_lock(&persist.lock);
    for (int i = 0; i < n; i++) {
        const struct pst *p = find(reqs[i]);
        if (!p)
            continue;
        if (p->send)
            c->sent += p->bytes;
        else
            c->recv += p->bytes;
        if (n == 1) {
            c->comm = p->comm;
            c->tag = p->tag;
            if (p->send)
                c->dest = p->peer;
            else
                c->src = p->peer;
        }
    }
    pthread_mutex_unlock(&persist.lock);
}

void pst_forget(MPI_Request r)
{
    if (!atomic_load_explicit(&persist.ever, memory_order_relaxed))
        return; /* frees of nonblocking requests in a program without persistent ones */
    pthread_mutex_lock(&persist.lock);
    struct pst *p = find(r);
    if (p)
        p->used = 2;
    pthread_mutex_unlock(&persist.lock);
}
