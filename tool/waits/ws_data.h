/* Wait states, layer 1 of 5 (tool/README.md): what the layers share. The record a late rank
 * ships and its form on the wire, the types of the per-thread state, the shadow of a
 * communicator, the request table, the posting order of receives, the keys of the ledger's
 * regions and the clock. Nothing here calls a layer above. */
#ifndef TARDY_WS_DATA_H
#define TARDY_WS_DATA_H

#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "tool/base/base.h"
#include "tool/core/core.h"
/* enum ws_pattern, ws_pattern_name, ws_pattern_of: generated from mpit/mpi.spec */
#include "ws_patterns.h"

#define WS_K 8          /* regions a ledger keeps (its top ones by time) */
#define WS_SECS 4       /* sections of a ledger: synchronisation points it tells apart */

/* One region of the ledger: a rank-independent key and its own time in seconds. */
struct ws_reg {
    uint64_t key;
    double t;
};

/* A rank's ledger of regions since its last collective (a synchronisation point with every
 * rank), in sections that tell the waiting rank which regions came after its own last
 * synchronisation with this one (H-CWP-DM, docs/design.md 3.6). Section 0 starts at the
 * collective; each later one at a message sent to or received from the ranks of its mask
 * (bit rank % 64). Regions are kept per section, the WS_K largest of all (a full ledger
 * first merges two older sections that share a key); each section knows its regions by a
 * mask of their slots, so that adding, cutting and asking for the part since a cut touch
 * only the regions concerned. */
struct ws_led {
    uint8_t nreg, nsec;         /* nsec >= 1 (ws_led_reset) */
    uint8_t slots[WS_SECS];     /* the regions of each section: bit i for reg[i] */
    struct ws_reg reg[WS_K];
    double floor;               /* no region is smaller (a full ledger drops smaller ones) */
    uint64_t peers[WS_SECS];    /* the ranks each section begins a synchronisation with */
    uint64_t sent[WS_SECS];     /* ... of those, the ones it only sent to (ws_led_since) */
    double sec_t[WS_SECS];      /* time in each section, regions no longer kept included */
};
_Static_assert(WS_K <= 8, "a section's regions are a mask of 8 bits");

/* What travels with a message or through a collective exchange: the corrected enter time
 * of the late side's call, its world rank, and its ledger (a message's: only the regions
 * since the sender's last synchronisation with the receiver, in one section). */
struct ws_msg {
    double e;
    int32_t rank;
    int32_t spare;
    struct ws_led led;
};

/* Is record a later than b (ties: the lower rank, so that the latest of many does not depend
 * on their order)? */
static inline int ws_later_than(const struct ws_msg *a, const struct ws_msg *b)
{
    return a->e > b->e || (a->e == b->e && a->rank < b->rank);
}

/* A handle (communicator, window, request, message) as a key of the fixed tables: its bits
 * + 2 (0 and 1 mark empty and removed slots), and its first slot in a table of mask + 1. */
static inline uint64_t ws_handle_key(const void *h, size_t len)
{
    uint64_t k = 0;
    memcpy(&k, h, len < sizeof k ? len : sizeof k);
    return k + 2;
}

static inline uint32_t ws_handle_slot(uint64_t k, uint32_t mask)
{
    return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* ---- the point-to-point piggyback on the wire (wire.c) ---- */
struct ws_wire {
    int64_t eh;          /* enter time (ns since ws_base) << 8 | region count | sync flag */
    struct ws_reg reg[WS_K];   /* the hotspot regions only */
};
extern double ws_base;   /* the reference time at init, the same on every rank */
/* Encode the regions of ledger led since its last synchronisation with world rank peer,
 * with enter time e; returns the bytes to send. */
int ws_wire_pack(const struct ws_led *led, int peer, double e, int sync, struct ws_wire *p);
#define WS_WIRE_SYNC 1    /* a synchronous send: answer it */
#define WS_WIRE_CHAIN 2   /* its regions begin at the sender's last send to the receiver */
/* Decode into m, rank being the sender's world rank; returns its WS_WIRE_* flags. */
int ws_wire_unpack(const struct ws_wire *p, int rank, struct ws_msg *m);
/* The record as one MPI datatype and the reduction keeping the later one (ws_later_than),
 * made at init (collective: every rank) and freed at finalize. */
void ws_wire_init(void);
void ws_wire_fini(void);
MPI_Datatype ws_msg_dtype(void);   /* struct ws_msg as one MPI datatype */
MPI_Op ws_later(void);             /* keeps the later record (ws_later_than) */

/* ---- a shadow communicator (comm.c) ---- */
struct ws_comm {
    _Atomic uint64_t key;   /* user handle + 1, 0 empty, 1 removed */
    MPI_Comm shadow;
    MPI_Comm ack;           /* receivers of synchronous sends answer here (Late Receiver) */
    int inter, size, rank;
    atomic_uint ncoll;      /* collectives so far (sampling) */
    int nbr_in;             /* a topology's in-neighbours of this rank (-1: no topology) */
    struct ws_msg *nbuf;    /* their records in a neighbourhood collective */
    struct ws_batch *batch; /* blocking collectives' exchanges to come (intra-communicators) */
    int lent;               /* the shadow is also a closing exchange's, which frees it last */
    unsigned gen;           /* this shadow's number (a user handle can be reused) */
    /* clock resynchronisation (clock.c): an intra-communicator of every world rank
     * (`world`) counts its blocking collectives since it last looked (at local time t_look),
     * and at the `next` one the ranks agree whether to measure the clocks again */
    int world;
    unsigned long n, next;
    double t_look;
};

/* ---- waits not measured: objects past the bounded tables (req.c), answers that never came
 * (p2p.c) ---- */
enum ws_unmeasured_kind { WS_UM_COMMS, WS_UM_WINDOWS, WS_UM_REQUESTS, WS_UM_RECEIVES,
                          WS_UM_ANSWERS, WS_UM_KINDS };
extern atomic_uint ws_unmeasured[WS_UM_KINDS];   /* counted, reported in the profile */

/* ---- request table (req.c) ---- */
enum ws_rq_kind { WS_RQ_RECV = 1, WS_RQ_PSEND, WS_RQ_PRECV, WS_RQ_ICOLL, WS_RQ_SSEND,
                  WS_RQ_CSEND };
struct ws_icoll;
struct ws_ack;
struct ws_rq {
    int kind;
    unsigned fn;
    int dest, tag;
    MPI_Comm comm;
    double t_post;          /* receives: corrected enter of the call that posted (started) it */
    struct ws_posted *posted;   /* receives: their place in the posting order (recvq.c) */
    struct ws_icoll *ic;
    struct ws_ack *ack;     /* synchronous sends (Issend, started Ssend_init): the answer */
    MPI_Request user;       /* nonblocking sends that may be cancelled: the user's request, */
    int pb;                 /* ... and 1 when their record joined a batch (pbatch.c) */
};
/* Copy of a table entry for one request of a completion call (Wait, Test, ...). */
struct ws_rq_ref {
    int slot;               /* -1: not tracked */
    uint32_t gen;
    struct ws_rq rq;
};
int ws_rq_add(MPI_Request r, const struct ws_rq *rq);
int ws_rq_find(MPI_Request r, struct ws_rq_ref *out);
void ws_rq_remove(const struct ws_rq_ref *ref);
/* Replace the tracked entry's contents (a persistent request at its start). */
void ws_rq_set(const struct ws_rq_ref *ref, const struct ws_rq *rq);
extern atomic_int ws_rq_live;   /* tracked requests now (0: completions need no snapshot) */
void ws_rq_fini(void);

/* ---- keys and ledger (ledger.c) ---- */
void ws_keys_init(void);
uint64_t ws_site_key(uint64_t site);             /* rank-independent key of a call site */
uint64_t ws_region_key(uint64_t from, uint64_t to);
uint64_t ws_key_pair(uint64_t from_key, uint64_t to_key);   /* ws_region_key from site keys */
#define WS_KEY_MPI (1ull << 63)                  /* region is the MPI call itself */

/* ---- the ledger and root causes (causes.c: no MPI) ---- */
/* Regions under this share of a ledger's total (per mille) are no hotspot: never sent, never
 * a cause. */
extern int ws_hotspot_permille;
/* A full ledger l meets a region (key, t) its newest section does not hold, above its floor:
 * two older sections sharing a key merge to free a slot, else it takes the slot of the
 * smallest region if it is larger (sections.c). */
void ws_led_evict(struct ws_led *l, uint64_t key, double t);
/* Region (key, t) into the free slot of ledger l (nreg < WS_K), in its newest section. */
static inline void ws_led_take_slot(struct ws_led *l, uint64_t key, double t)
{
    int n = l->nreg;
    l->slots[l->nsec - 1] |= (uint8_t)(1u << n);
    l->reg[n] = (struct ws_reg){key, t};
    l->nreg = (uint8_t)(n + 1);
    if (t < l->floor)
        l->floor = t;
}
/* Add t seconds to region key in the newest section of ledger l; a full ledger keeps its
 * largest regions. Inline: every MPI call adds twice with wait states on. */
static inline void ws_led_add(struct ws_led *l, uint64_t key, double t)
{
    int s = l->nsec - 1;
    l->sec_t[s] += t;
    for (unsigned m = l->slots[s]; m; m &= m - 1) {
        int i = __builtin_ctz(m);
        if (l->reg[i].key == key) {
            l->reg[i].t += t;
            if (t < 0)
                l->floor = -HUGE_VAL;
            return;
        }
    }
    if (l->nreg < WS_K)
        ws_led_take_slot(l, key, t);
    else if (!(t <= l->floor)) /* a smaller one is dropped: the common case */
        ws_led_evict(l, key, t);
}
/* ---- the ledger's sections (sections.c: no MPI) ---- */
/* The bit of world rank r in the mask of a section. */
static inline uint64_t ws_rank_bit(int r)
{
    return 1ull << ((unsigned)r & 63);
}
/* Empty ledger l: one section, begun at a synchronisation point with every rank. */
void ws_led_reset(struct ws_led *l);
/* Messages to (sent) or from the ranks of mask peers: a new section begins (when the ledger
 * has WS_SECS, the two whose merging loses least become one). */
void ws_led_sync(struct ws_led *l, uint64_t peers, int sent);
/* The regions of l since its last synchronisation with world rank peer (-1: all), each key
 * once, into out; *total: their time and that of regions l no longer keeps; *sent (may be
 * NULL): that synchronisation was a message l's rank sent to peer. Returns how many. */
int ws_led_since(const struct ws_led *l, int peer, struct ws_reg out[WS_K], double *total,
                 int *sent);

/* ---- messages in a row (chain.c: no MPI) ---- */
/* A receiver's wait for a message began before it received the sender's previous ones when
 * one call completes them all (a Waitall): the previous send was then no synchronisation
 * point for it, and the regions before it count too. The call keeps, for its last
 * WS_CHAINS senders, the regions their messages carried so far. */
#define WS_CHAINS 4
struct ws_chain {
    int32_t rank, nreg;
    struct ws_reg reg[WS_K];
};
/* Message m of the current call (chained: flagged WS_WIRE_CHAIN) takes in the regions of the
 * same sender's earlier messages in the call, kept in c (*n of them), and is kept there. */
void ws_chain_add(struct ws_chain c[WS_CHAINS], int *n, struct ws_msg *m, int chained);
/* A region's share of one wait (key 0: no hotspot region explains it). */
struct ws_share {
    uint64_t key;
    double cost;
};
/* The one share of a wait no region explains: all of it, key 0. */
static inline struct ws_share ws_unexplained(double wait)
{
    return (struct ws_share){0, wait};
}
/* The root-cause shares of a wait of world rank me against late record m, with me's ledger
 * mine in the waiting call (NULL: empty); each side's regions are those since its last
 * synchronisation with the other. Returns how many (1 to WS_K). */
int ws_shares(const struct ws_led *mine, int me, double wait, const struct ws_msg *m,
              struct ws_share out[WS_K]);

/* ---- the clock model (clock_model.c: no MPI) ---- */
/* Reference time = t + off + rate * (t - t_sync), t the local (test-shifted) clock. */
struct clock_model {
    double off, rate, t_sync;
};
static inline double clock_model_at(const struct clock_model *m, double t)
{
    return t + m->off + m->rate * (t - m->t_sync);
}
/* The measurements so far: weighted least squares of offset over local time (weight 1/rtt^2:
 * an offset is known to +-rtt/2), older ones fading at each new one; running sums, so O(1)
 * memory. Zero-initialised before the first. */
struct clock_fit {
    double s_w, s_t, s_o, s_tt, s_to, t_first;
    int n;
};
/* Measurement n + 1: offset off at local time t with best round trip rtt. Returns the model
 * to use from now on: the fitted line through all of them at t (a rate beyond CLOCK_RATE_MAX
 * is taken for measurement error: then the measurement itself, without drift). */
#define CLOCK_RATE_MAX 0.05
#define CLOCK_FORGET 0.9
struct clock_model clock_fit_add(struct clock_fit *f, double off, double t, double rtt);

/* ---- clock synchronisation (clock.c) ---- */
/* What reading the reference time takes: the test-only shift and drift of the raw clock, and
 * the model (two copies: a resync writes the one not in use, then switches, so readers on
 * other threads never see a half-written one). Inline: several readings per MPI call. */
extern struct ws_clock {
    double shift, test_rate, test_t0;
    struct clock_model model[2];
    atomic_uint cur;
} ws_clock;
/* Raw clk_now() reading -> this rank's local clock (shifted and drifting under test). */
static inline double ws_clock_local(double raw)
{
    return raw + ws_clock.shift + ws_clock.test_rate * (raw - ws_clock.test_t0);
}
/* Raw clk_now() reading -> reference time. */
static inline double ws_corr(double raw)
{
    return clock_model_at(
        &ws_clock.model[atomic_load_explicit(&ws_clock.cur, memory_order_acquire) & 1],
        ws_clock_local(raw));
}
/* Testing: this rank's clock runs ahead by shift seconds and gains rate seconds per second
 * from now on. */
void ws_clock_test(double shift, double rate);
void ws_clock_period(double seconds);   /* periodic resynchronisation (0: none) */
/* Collective over comm at init: do all ranks want wait states (want: this rank's wish)? If so
 * (returns 1; else 0, and nothing else is done), align the clocks and set ws_base; *multiple
 * (this rank's MPI_THREAD_MULTIPLE) becomes whether any rank's is. One
 * reduction when every rank reads one clock (one host): nothing to measure. */
int ws_clock_start(MPI_Comm comm, int want, int *multiple);
/* Collective over the ranks of ws_clock_start at finalize: measure the offsets once more. */
void ws_clock_end(void);
void ws_clock_comm(struct ws_comm *sc);   /* a new shadow: its resynchronisation schedule */
void ws_clock_report(double *offset, double *uncertainty, double *drift, double *n_resync);
/* Periodic resynchronisation is on: a period is set and the clocks are in sync (from init to
 * finalize). A variable, not a call: every blocking collective reads it. */
extern int ws_resync;
/* A blocking collective on shadow sc (of a communicator of every world rank) completed, every
 * rank at the same one: count it, and at the agreed one measure the clocks if the period is
 * over (collective over sc). Returns 1 when it looked. */
int ws_clock_look(struct ws_comm *sc);

/* Bytes of the piggyback whose first word is eh (more than a struct ws_wire: not one). */
size_t ws_wire_bytes(int64_t eh);

/* ---- point-to-point piggybacks in batches per destination (pbatch.c, pstream.c) ---- */
#define WS_PB_RECS 16                                    /* records a batch holds */
#define WS_PB_BYTES (WS_PB_RECS * (8 + (int)sizeof(struct ws_wire)))
#define WS_PB_TAG 1                                      /* batches' tag on the shadow */
/* Some rank runs threads at MPI_THREAD_MULTIPLE (agreed at MPI_Init): every record leaves at
 * once and receives wait for theirs, as each thread takes its receives' records at its next
 * call, and the threads of a rank may end before any batch would be full; the tables of
 * batches and records are locked. */
extern int ws_multiple;
/* Threads call MPI at the same time only at MPI_THREAD_MULTIPLE: only then these lock. */
static inline void ws_mt_lock(pthread_mutex_t *m)
{
    if (ws_multiple)
        pthread_mutex_lock(m);
}

static inline void ws_mt_unlock(pthread_mutex_t *m)
{
    if (ws_multiple)
        pthread_mutex_unlock(m);
}
/* The record p (bytes long) of a send with tag to dest on shadow (numbered gen) joins dest's
 * batch, which leaves when full, at once for a synchronous send; now: the clock. Without
 * memory for a batch the record is sent alone. */
void ws_pb_add(unsigned gen, MPI_Comm shadow, int dest, int tag, const struct ws_wire *p,
               int bytes, int sync, double now);
/* The calling thread's last record is for the user's nonblocking send user. */
void ws_pb_user(MPI_Request user);
/* 1 when the record of user's send still waits in a batch; withdraw: remove it (its send
 * was cancelled), 1 when it was still there. */
int ws_pb_waiting(MPI_Request user);
int ws_pb_withdraw(MPI_Request user);
void ws_pb_tick(void);                 /* send every batch once the oldest record is old */
void ws_pb_flush(unsigned gen);        /* send the batches on shadow gen (0: all) */
/* At finalize, once every rank took the records it waits for: the batches in flight
 * completed (those no receive asked for cancelled), the tables freed. */
void ws_pb_fini(void);
/* The record of the next message with tag from source (a rank of the shadow's communicator)
 * on shadow gen into out: 1, or 0 when its batch is not in yet (block: waits for it, only
 * once every rank flushed its batches). */
int ws_ps_take(unsigned gen, MPI_Comm shadow, int source, int tag, struct ws_wire *out,
               int block);
/* The record of that message is not wanted (its receive was freed): dropped when it comes. */
void ws_ps_skip(unsigned gen, int source, int tag);
void ws_ps_forget(unsigned gen);       /* shadow gen is gone: its records too */
void ws_ps_drop(MPI_Comm shadow);      /* receive and drop the batches that are in */
void ws_ps_fini(void);

/* ---- the ring of protocol sends (ring.c) ---- */
struct ws_thread;
struct ws_ring *ws_ring_new(void);   /* NULL: out of memory */
/* The next slot of w's ring: its buffer and request (never waits for a receiver). */
struct ws_wire *ws_ring_slot(struct ws_thread *w, MPI_Request **req);
void ws_ring_wait(struct ws_thread *w);   /* complete every protocol send in flight */

/* ---- per-thread state (thread.c; its parts are used by the layers above) ---- */
#define WS_RING 64
#define WS_KEYS 16                      /* a power of two: the index is a hash's top 4 bits */
#define WS_CULPRITS 4

/* Waits of one pattern at one call site (k1 = site | pattern << 56, k2 = 0). */
struct ws_row {
    uint64_t k1, k2;
    uint64_t count;
    double time, tmax;
    struct hist calls;
    int32_t culprit[WS_CULPRITS];   /* world ranks that caused the waits, -1 free */
    double culprit_t[WS_CULPRITS];
};
/* Cost of one region of the late ranks for one wait row (k2 = region key, 0 unexplained). */
struct ws_cost {
    uint64_t k1, k2;
    uint64_t count;
    double cost;
};
#define WS_ROWKEY(site, pattern) ((site) | (uint64_t)(pattern) << 56)
#define WS_ROWKEY_PATTERN(k) ((int)((k) >> 56))
#define WS_ROWKEY_SITE(k) ((k) & ((1ull << 56) - 1))

struct ws_icoll {
    struct ws_msg mine, res;
    struct ws_msg *nb;         /* neighbourhood collectives: the in-neighbours' records */
    int nnb, nb_cap;           /* records to reduce into res when done (0: res is final) */
    MPI_Request req;
    int pattern, waiter;       /* waiter: this rank can wait in this collective */
    double e, l;               /* corrected enter/leave of the completing call (deferred) */
    uint64_t site;             /* completing call site, 0 = do not record */
    struct ws_group *group;    /* the completing call's group (NULL: recorded alone) */
    struct ws_icoll *next;
};

/* The answer a synchronous send waits for: when its receive was posted, by whom. A
 * nonblocking one's wait is in the call that completes its request: until then the user
 * holds the answer (`held`), which the owning thread then neither records nor reuses. */
struct ws_ack {
    struct ws_msg m;           /* the answer, once decoded */
    struct ws_wire in;         /* the answer as it arrives */
    int rank;                  /* world rank of the receiver answering */
    MPI_Request req;
    uint64_t site;             /* the sending or completing call, 0 = do not record */
    double e, l;               /* its corrected enter and leave */
    atomic_int held;           /* the request is still the user's */
    struct ws_thread *owner;   /* the thread whose list holds it */
    struct ws_group *group;    /* the completing call's group (NULL: recorded alone) */
    struct ws_ack *next;
};

/* The parts of one call's wait known only later (group.c): answers to its synchronous
 * sends, collective exchanges in flight, its receives' piggybacks when it has other parts. */
struct ws_group {
    int left;                  /* parts still to come, and the call itself until it ends */
    int pattern;
    uint64_t site;             /* the call (0: do not record) */
    double best_w;
    struct ws_msg best;
    struct ws_led led;         /* this rank's ledger in the call */
    struct ws_group *next;     /* free list */
};

/* A Late Sender wait held back until it is known whether it was in the wrong order
 * (order.c): its call site, length, late rank, the send it waited for, and its causes. */
#define WS_HELD 8
struct ws_held {
    uint64_t site;
    double wait, e_send;
    int32_t rank, nsh;          /* nsh 0: slot empty */
    struct ws_share sh[WS_K];
};

/* A completed receive whose piggyback is still to be taken (p2p.c). A thread takes them
 * in order after its next send, or at the end of its next receive, completion or collective
 * call: off the path of the messages, once its sender's batch is in. Bounded: beyond
 * WS_TAKES_MAX the oldest is not judged. */
#define WS_TAKES 16
#define WS_TAKES_MAX 2048
struct ws_take {
    MPI_Comm comm;
    unsigned gen;               /* of comm's shadow: gone when it changed */
    int source, tag;
    int world;                  /* source's world rank (not for blind ones) */
    int blind;                  /* a receive freed while active: its piggyback is discarded */
    int alone;                  /* held back by the posting order: a call of its own */
    unsigned call;              /* the completing call (its number, ws_thread.calls) */
    uint64_t site;              /* the completing call, 0: do not record */
    double e_post, e, l;        /* corrected: when the receive was posted, the call's E and L */
    int other_pattern;
    struct ws_led led;          /* this thread's ledger in that call */
    double other_w;             /* the call's largest other wait (0: none), against other */
    struct ws_msg other;
    struct ws_group *group;     /* the call's group, when it has one */
};
/* ---- the posting order of receives (recvq.c) ---- */
/* A nonblocking or persistent receive from its post (or start) until its piggyback can be
 * taken; also a completed blocking receive that had to wait for earlier ones. */
struct ws_posted {
    struct ws_posted *prev, *next;
    unsigned gen;               /* of its communicator's shadow */
    int source, tag;            /* as posted (wildcards) */
    int state;
    struct ws_take take;        /* once completed and held back */
};
/* A receive was posted on the shadow numbered gen (NULL: out of memory, not ordered). */
struct ws_posted *ws_recvq_post(unsigned gen, int source, int tag);
/* Receive p (NULL: a blocking one) completed; t is its take. Returns 1 when t was held back
 * (an earlier receive that could have matched its source and tag is pending), else 0; in
 * *rel the held ones now free, in order, to be taken after the queue (and t) and then given
 * back with ws_recvq_free. */
int ws_recvq_done(struct ws_posted *p, const struct ws_take *t, struct ws_posted **rel);
/* Pending receive p will never take a piggyback (cancelled, from MPI_PROC_NULL, freed with a
 * wildcard): returns the held ones it freed, as ws_recvq_done. */
struct ws_posted *ws_recvq_drop(struct ws_posted *p);
struct ws_posted *ws_recvq_flush(void);   /* every held one, in order (at finalize) */
/* Is a receive on the shadow numbered gen pending or held (its piggyback still to come)? */
int ws_recvq_uses(unsigned gen);
void ws_recvq_free(struct ws_posted *chain);
void ws_recvq_fini(void);

/* The largest wait of the call whose piggybacks are being taken. */
struct ws_callwait {
    int open, pattern;
    unsigned call;
    uint64_t site;
    struct ws_group *group;     /* the call's group: the largest wait goes there */
    double best_w;
    struct ws_msg msg[2];       /* the largest wait's record (msg[best]), the next piggyback */
    int best;
    const struct ws_led *led;   /* this rank's ledger in the call: its first take's, or own */
    struct ws_led own;
    struct ws_chain chain[WS_CHAINS];   /* the regions of its messages so far, by sender */
    int nchain;
};

struct ws_thread {
    struct ws_led led;
    uint64_t prev_site;         /* the last call seen by ws_fold, 0 after a sync point */
    struct ws_keyslot {
        uint64_t site, key;
        uint64_t from, from_key, pair;   /* the last call before it: its key, the interval's */
    } keys[WS_KEYS];            /* keys of recent call sites (site 0: empty) */
    double prev_enter, prev_enter_before;
    struct table rows, costs;
    uint32_t row_hint, cost_hint;     /* the rows of the last recorded wait (tab_find_hinted) */
    struct ws_ring *ring, *retired;   /* protocol sends (ring.c): this turn's, older in flight */
    unsigned ring_pos, ring_base;     /* positions: the next, the current ring's first */
    int pb_pos;                 /* 1: the running send's record joined a batch */
    struct ws_rq_ref *snap;
    int snap_n, snap_cap;
    MPI_Status *sts;
    int sts_cap;
    MPI_Fint *fsts;             /* Fortran statuses in place of ignored ones (fortran.c) */
    int fsts_cap;
    double best_w;              /* largest wait seen in the current call */
    int best_pattern;
    int synced;                 /* the current call synchronised with every rank of a group */
    int received;               /* ... received a message (its own time is waiting) */
    uint64_t cut;               /* ... received from these ranks (ws_rank_bit): cut at its end */
    struct ws_msg best;
    struct ws_icoll *deferred;  /* collective exchanges still in flight */
    struct ws_ack *acks;        /* answers to synchronous sends still in flight */
    struct ws_ack *sync_ack;    /* the answer of the blocking Ssend in progress */
    struct ws_ack *free_acks;
    struct ws_group *group;     /* the current call's, once a part of its wait comes later */
    struct ws_group *free_groups;
    struct ws_icoll *free_ic;
    struct ws_held held[WS_HELD];
    unsigned held_next;
    double held_max;            /* the latest send a held wait was for (-inf: none held) */
    struct ws_take *pre;        /* the blocking receive in progress: its take, filled before */
    int pre_cut;                /* ... and the ledger cut before it for its source */
    struct ws_take *takes;      /* receives to take: a ring of take_cap (a power of two), */
    int take_head, ntakes, take_cap;   /* ... the oldest at take_head */
    int take_probe;             /* queued receives before asking for missing records again */
    unsigned calls;             /* calls settled so far */
    struct ws_callwait cw;
    struct ws_thread *next;
};

#endif
