/* Wait states of blocking collectives on intra-communicators, exchanged in batches: each call
 * keeps its enter and leave times and its ledger as words (ledger_words.c: 4 for one region,
 * where struct ws_msg is 32); every WS_BATCH calls on a communicator (the same call on every
 * rank) one MAX reduction of two 64-bit integers per call (enter times at the clock's
 * resolution) finds each call's latest rank. Each reduction costs the MPI library about 5,500
 * instructions to start (MPICH 4.0, whatever its length): 64 calls share them. It is
 * nonblocking, started at the batch's last call and finished at the next batch's: on
 * oversubscribed cores a blocking one cost as much as the program's own collective, since
 * every rank must run for it, where a nonblocking one progresses while the ranks are in MPI
 * anyway. The late ranks' ledgers of the calls where somebody waited at least CAUSE_MIN ride
 * in the next batch's reduction (held until then), as many words each as the longest ledger
 * of their batch (a MAX of one more word): one reduction per batch, where a second
 * one right away cost as much again (on oversubscribed cores nearly every batch has such a
 * call). Where MPI is version 4, a batch's reduction is a persistent one (MPI_Allreduce_init,
 * made at a size's first use, then MPI_Start: half the instructions of an MPI_Iallreduce in
 * MPICH 4.0), its length rounded up to one of a few sizes with NONE words. The waits are
 * exact, recorded one to three batches late. Batches still open when
 * their communicator is freed, and at finalize, finish with one nonblocking exchange of the
 * whole records and of the held calls' late records. */
#include "waits.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "ws_exchange.h"
#include "tool/base/base.h"

#define WS_BATCH 64
#define CAUSE_MIN 20e-6
#define NS_BITS 47      /* 2^47 ns (39 hours) from a batch's base at the finest tick */
#define NONE INT64_MIN
/* The persistent reductions: 2 * WS_BATCH + 1 words and up to PERSIST_SIZES - 1 steps of
 * PERSIST_STEP words of held late records (one step holds a few one-region ledgers); longer
 * ones are MPI_Iallreduce. */
#define PERSIST_STEP 32
#define PERSIST_SIZES 4
_Static_assert(2 * WS_BATCH + 1 + (PERSIST_SIZES - 1) * PERSIST_STEP <=
                   (2 + 1 + WS_LED_WORDS) * WS_BATCH + 1,
               "the largest persistent reduction fits the exchange's words");
/* A late rank's record as 64-bit words in the MAX reduction: its enter time's bits, then its
 * ledger's words (ws_led_words); the other ranks give NONE, so the maximum is its words, bit
 * for bit. Its rank is known from the call's packed enter time. */
#define LATE_WORDS (1 + WS_LED_WORDS)

/* One collective call of this rank. */
struct entry {
    uint64_t site;       /* 0: do not record (quiet call, or this rank cannot wait) */
    double e, l;         /* corrected enter and leave */
    int pattern;
    uint8_t root;        /* this rank was the call's root */
    uint8_t nled;        /* words in led */
    int64_t led[WS_LED_WORDS];   /* this rank's ledger in the call (ws_led_words) */
};

struct ws_batch {
    int n;               /* calls of the open batch, in ent */
    int rank_bits, shift; /* packed enter times: ranks' bits, tick 2^shift ns (0: unset) */
    double ns_per, per_ns; /* 2^shift and 2^-shift */
    double base;          /* packed enter times count from here, the same on every rank */
    MPI_Comm comm;       /* the user's communicator (its ranks name the late one) */
    /* an exchange, reduced in place: a batch's, 2 packed enter times per call, the most
     * ledger words of a call that can be late, then the held calls' late records (held_words
     * each); a closing one, the whole records of the open calls, then the held calls' late
     * records */
    union {
        int64_t w[(2 + LATE_WORDS) * WS_BATCH + 1];
        struct ws_msg rec[2 * WS_BATCH];
    } x;
    struct entry *ent;   /* one of sets: the open batch's calls */
    int nsent;           /* calls of the exchange in flight (req), in sent */
    struct entry *sent;  /* the other one */
    struct entry sets[2][WS_BATCH];
    /* calls of an exchange done whose late records come with the next one to start (or in
     * flight), and their late ranks (in comm) */
    int nheld, held_in_flight, held_words;
    struct entry held[WS_BATCH];
    int held_late[WS_BATCH];
    MPI_Request req;     /* the exchange in flight, or at closing the closing one */
    MPI_Request persist[PERSIST_SIZES];   /* the persistent reductions made so far */
    MPI_Comm shadow;     /* freed once the exchange is done (Open MPI 4.1 crashes otherwise),
                          * unless its communicator or receives still use it (comm.c) */
    struct ws_batch *next;
};

/* Exchanges of freed communicators in flight. */
static struct {
    struct ws_batch *list;
    atomic_int n;
    pthread_mutex_t lock;
} closing = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* An enter time packed for the first reduction: ticks since the batch's base in the high
 * bits, the rank in the low rank_bits (the fewest that hold the communicator's ranks); a MAX
 * of these finds the latest rank (MAXLOC of MPI_DOUBLE_INT costs 2.5x as much here). The
 * tick is the clock's nanosecond up to 2^16 ranks (2^47 of them: 39 hours from the base);
 * each further bit of ranks doubles it. Rounded to the nearest tick: a coarser one (1 us)
 * lost the waits under it, 25-30% of Wait at NxN instances in balanced runs. */
static int64_t pack(const struct ws_batch *b, double e, int rank)
{
    double ticks = (e - b->base) * 1e9 * b->per_ns; /* a power of two: exact as ldexp */
    int64_t max = INT64_MAX >> b->rank_bits;
    int64_t t = !(ticks > 0) ? 0 : ticks >= (double)max ? max : llrint(ticks);
    return t << b->rank_bits | rank;
}

static double unpack(const struct ws_batch *b, int64_t v)
{
    return b->base + (double)(v >> b->rank_bits) * b->ns_per * 1e-9;
}

/* The packing of a communicator of size ranks, from ws_base on. */
static void scale(struct ws_batch *b, int size)
{
    b->rank_bits = 1;
    while (b->rank_bits < 31 && (1 << b->rank_bits) < size)
        b->rank_bits++;
    b->shift = b->rank_bits + NS_BITS > 63 ? b->rank_bits + NS_BITS - 63 : 0;
    b->ns_per = ldexp(1.0, b->shift);
    b->per_ns = ldexp(1.0, -b->shift);
    b->base = ws_base;
}

/* Record the wait of entry t for the late rank's enter e and world rank late (this thread's
 * tables), against its record m; m NULL: a wait under CAUSE_MIN, whose causes are not sought,
 * all of it unexplained. */
static void record(struct ws_thread *w, const struct entry *t, double e, int late,
                   const struct ws_msg *m)
{
    if (!w || !t->site || !isfinite(e))
        return;
    if (e > t->l)
        atomic_fetch_add_explicit(&ws_violations, 1, memory_order_relaxed);
    /* a sampled exchange stands for ws_sample collectives */
    double wait = ((e < t->l ? e : t->l) - t->e) * ws_sample;
    if (!(wait > 0) || late == tardy_rank)
        return;
    if (m) {
        struct ws_led mine;
        ws_led_unwords(t->led, &mine);
        ws_record_led(w, t->site, t->pattern, wait, m, &mine);
    } else {
        struct ws_share all = ws_unexplained(wait);
        ws_record_shares(w, t->site, t->pattern, wait, late, &all, 1);
    }
}

static void record_late(struct ws_thread *w, const struct entry *t, const struct ws_msg *m)
{
    record(w, t, m->e, m->rank, m);
}

/* After an exchange of n calls: the next batch counts from the earliest enter of its last
 * call that every rank entered as a peer (not a rooted one, whose root may leave before
 * the others enter): each rank's next enter is later than its own there. */
static void rebase(struct ws_batch *b, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        int64_t lo = b->x.w[2 * i + 1];
        int p = b->sent[i].pattern;
        if (p != WS_LATE_BCAST && p != WS_EARLY_REDUCE && lo != NONE) {
            b->base = unpack(b, -lo);
            return;
        }
    }
}

/* Can this rank wait in a call of pattern (root: it is the call's root)? In a broadcast only
 * the others wait for the root, in a reduction only the root for the others; in the other
 * collectives everybody. */
static int can_wait(int pattern, int root)
{
    return pattern == WS_LATE_BCAST ? !root : pattern == WS_EARLY_REDUCE ? root : 1;
}

/* Can this rank be the late one? Everybody but those who wait in a rooted pattern. */
static int can_be_late(int pattern, int root)
{
    return (pattern != WS_LATE_BCAST && pattern != WS_EARLY_REDUCE) || !can_wait(pattern, root);
}

/* This rank's part of call t in an exchange (in[0]: who can be late, NONE: not this rank;
 * in[1]: -(min E) of those who wait, or the root's E in a reduction). */
static void pack_call(const struct ws_batch *b, const struct entry *t, int rank, int64_t *in)
{
    int64_t e = pack(b, t->e, 0);
    in[0] = can_be_late(t->pattern, t->root) ? e | rank : NONE;
    in[1] = !can_wait(t->pattern, t->root) ? NONE : t->pattern == WS_EARLY_REDUCE ? e : -e;
}

/* Finish the exchange in flight, if any (collective: every rank started it): record the
 * held calls with the late records it brought, hold its own calls that need theirs, record
 * the others, and count the next batch from it. Returns 1 if there was one. */
static int finish(struct ws_thread *w, const struct ws_comm *sc, struct ws_batch *b)
{
    if (b->req == MPI_REQUEST_NULL)
        return 0;
    own_Wait(&b->req, MPI_STATUS_IGNORE);
    b->req = MPI_REQUEST_NULL; /* a persistent one's handle stays in persist */
    int n = b->nsent;
    for (int j = 0; j < b->held_in_flight; j++) {
        const int64_t *words = &b->x.w[2 * n + 1 + j * b->held_words];
        struct ws_msg m;
        memcpy(&m.e, words, sizeof m.e);
        m.rank = pr_world(b->comm, b->held_late[j]);
        ws_led_unwords(words + 1, &m.led);
        record_late(w, &b->held[j], &m);
    }
    b->nheld = b->held_in_flight = b->nsent = 0;
    b->held_words = 1 + (int)b->x.w[2 * n];
    for (int i = 0; i < n; i++) {
        int64_t hi = b->x.w[2 * i], lo = b->x.w[2 * i + 1];
        int late = (int)(hi & ((1ll << b->rank_bits) - 1));
        if (hi == NONE || lo == NONE || late >= sc->size)
            continue; /* nobody can be late (or wait) here */
        double early = unpack(b, b->sent[i].pattern == WS_EARLY_REDUCE ? lo : -lo);
        if (unpack(b, hi) - early >= CAUSE_MIN) { /* its ledger comes with the next exchange */
            b->held_late[b->nheld] = late;
            b->held[b->nheld++] = b->sent[i];
            continue;
        }
        record(w, &b->sent[i], unpack(b, hi), pr_world(b->comm, late), NULL);
    }
    rebase(b, n);
    return 1;
}

/* Start the exchange of the first count words of a full batch on the persistent reduction of
 * the next size up, made at that size's first use: the same call on every rank, as the size
 * depends only on what every rank knows. 0: there is none (MPI before version 4, too many
 * words, or it could not be made: memory exhausted, which the ranks do not agree on, as they
 * do not on a batch that could not be allocated). */
static int start_persistent(const struct ws_comm *sc, struct ws_batch *b, int count)
{
#if MPI_VERSION >= 4
    int base = 2 * WS_BATCH + 1, k = (count - base + PERSIST_STEP - 1) / PERSIST_STEP;
    if (k < 0 || k >= PERSIST_SIZES)
        return 0;
    int size = base + k * PERSIST_STEP;
    for (int i = count; i < size; i++)
        b->x.w[i] = NONE;
    if (b->persist[k] == MPI_REQUEST_NULL &&
        own_Allreduce_init(MPI_IN_PLACE, b->x.w, size, MPI_INT64_T, MPI_MAX, sc->shadow,
                           MPI_INFO_NULL, &b->persist[k]) != MPI_SUCCESS)
        return 0;
    b->req = b->persist[k];
    own_Start(&b->req); /* the others start it: no second exchange in its place */
    return 1;
#else
    (void)sc, (void)b, (void)count;
    return 0;
#endif
}

/* Start the open batch's exchange (nonblocking, collective over the shadow communicator):
 * the calls' packed enter times, the most ledger words of those this rank can be late in,
 * then this rank's words of the held calls' late records. */
static void start(const struct ws_comm *sc, struct ws_batch *b)
{
    int n = b->n, most = 0;
    for (int i = 0; i < n; i++) {
        pack_call(b, &b->ent[i], sc->rank, &b->x.w[2 * i]);
        if (b->x.w[2 * i] != NONE && b->ent[i].nled > most)
            most = b->ent[i].nled;
    }
    b->x.w[2 * n] = most;
    for (int j = 0; j < b->nheld; j++) {
        int64_t *words = &b->x.w[2 * n + 1 + j * b->held_words];
        const struct entry *t = &b->held[j];
        int k = 0;
        if (b->held_late[j] == sc->rank) { /* late: it can be, and its words fit */
            memcpy(&words[k++], &t->e, sizeof t->e);
            for (int i = 0; i < t->nled; i++)
                words[k++] = t->led[i];
        }
        while (k < b->held_words)
            words[k++] = NONE;
    }
    struct entry *spare = b->sent;
    b->sent = b->ent;
    b->ent = spare;
    b->nsent = n;
    b->held_in_flight = b->nheld;
    b->n = 0;
    int count = 2 * n + 1 + b->nheld * b->held_words;
    if (!start_persistent(sc, b, count))
        own_Iallreduce(MPI_IN_PLACE, b->x.w, count, MPI_INT64_T, MPI_MAX, sc->shadow, &b->req);
}

struct ws_batch *ws_batch_new(MPI_Comm comm)
{
    struct ws_batch *b = calloc(1, sizeof *b);
    if (b) {
        b->comm = comm;
        b->req = MPI_REQUEST_NULL;
        for (int k = 0; k < PERSIST_SIZES; k++)
            b->persist[k] = MPI_REQUEST_NULL;
        b->ent = b->sets[0];
        b->sent = b->sets[1];
    }
    return b;
}

int ws_batch_add(struct ws_thread *w, struct ws_comm *sc, struct ev_call *c, int pattern,
                 int root)
{
    struct ws_batch *b = sc->batch;
    if (atomic_load_explicit(&closing.n, memory_order_relaxed))
        ws_batch_drain(w, 0);
    struct entry *t = &b->ent[b->n];
    if (!b->rank_bits)
        scale(b, sc->size);
    t->e = ws_corr(c->t_enter);
    t->l = ws_corr(c->t_leave);
    t->pattern = pattern;
    t->root = root == sc->rank;
    t->nled = (uint8_t)ws_led_words(&w->led, t->led);
    t->site = can_wait(pattern, t->root) && c->th ? SITE(c->fn, c->cp) : 0;
    if (++b->n < WS_BATCH)
        return 0;
    finish(w, sc, b); /* the last batch's, whose result fixes this one's base */
    start(sc, b);
    return 1;
}

/* ---- closing ----------------------------------------------------------------------------- */

/* This rank's whole record of call t for the closing exchange, with enter time e (-inf: it
 * loses to any rank that can be late) and world rank. */
static void whole_record(const struct entry *t, double e, int rank, struct ws_msg *m)
{
    m->e = e;
    m->rank = rank;
    ws_led_unwords(t->led, &m->led);
}

void ws_batch_close(struct ws_comm *sc)
{
    struct ws_batch *b = sc->batch;
    sc->batch = NULL;
    if (b) {
        finish(ws_me(), sc, b);
        for (int k = 0; k < PERSIST_SIZES; k++)
            if (b->persist[k] != MPI_REQUEST_NULL)
                own_Request_free(&b->persist[k]);
    }
    if (!b || (!b->n && !b->nheld)) {
        free(b);
        return;
    }
    for (int i = 0; i < b->n; i++) {
        const struct entry *t = &b->ent[i];
        double e = can_be_late(t->pattern, t->root) ? t->e : -INFINITY;
        whole_record(t, e, tardy_rank, &b->x.rec[i]);
    }
    for (int j = 0; j < b->nheld; j++) { /* the late rank's record wins */
        int late = b->held_late[j] == sc->rank;
        whole_record(&b->held[j], late ? b->held[j].e : -INFINITY, late ? tardy_rank : -1,
                     &b->x.rec[b->n + j]);
    }
    own_Iallreduce(MPI_IN_PLACE, b->x.rec, b->n + b->nheld, ws_msg_dtype(), ws_later(),
                   sc->shadow, &b->req);
    b->shadow = sc->shadow; /* shared with receives' timestamps still to come (comm.c) */
    sc->lent = 1;
    pthread_mutex_lock(&closing.lock);
    b->next = closing.list;
    closing.list = b;
    atomic_fetch_add(&closing.n, 1);
    pthread_mutex_unlock(&closing.lock);
}

void ws_batch_drain(struct ws_thread *w, int block)
{
    pthread_mutex_lock(&closing.lock);
    struct ws_batch **p = &closing.list;
    while (*p) {
        struct ws_batch *b = *p;
        int done = 1;
        if (block) /* at finalize: yielding, as the ranks come one by one on a crowded node */
            yw_wait(&b->req);
        else
            own_Test(&b->req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            p = &b->next;
            continue;
        }
        *p = b->next;
        atomic_fetch_sub(&closing.n, 1);
        for (int i = 0; i < b->n; i++)
            record_late(w, &b->ent[i], &b->x.rec[i]);
        for (int j = 0; j < b->nheld; j++)
            record_late(w, &b->held[j], &b->x.rec[b->n + j]);
        if (!ws_comm_unlend(b->shadow))
            own_Comm_free(&b->shadow);
        free(b);
    }
    pthread_mutex_unlock(&closing.lock);
}
