/* Shadow communicators: two private copies (same groups, same ranks, same topology) per user
 * communicator, `shadow` for the piggybacks and collective exchanges and `ack` for the answers
 * to synchronous sends, found by the user's handle in a fixed table (lock-free lookups;
 * additions and removals take a lock, they happen only when communicators are created or
 * freed). The copies are started nonblocking when the communicator is created and finished at
 * its first use (ws_comm_find). Also the matched-probe message -> comm (and place in the
 * posting order of receives) map. */
#include "ws_exchange.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "tool/base/base.h"

#define COMM_SLOTS 512
/* Shadows (two communicators each) of at most this many live communicators, counting those
 * whose copies are still being made: MPICH has 2048 communicator ids in all, and they are the
 * application's first. */
#define WS_COMMS_MAX 128
#define MSG_SLOTS 1024
/* Shadows kept after their communicator was freed with receives pending, whose piggybacks
 * are still to come: at most this many (beyond, they go at once, and those piggybacks stay
 * unreceived, as MPI lets a freed communicator's pending messages be). */
#define KEPT_MAX 16
/* Receives queued for their records, counted per shadow number folded to this many (two live
 * shadows sharing a fold only keep one of them longer). */
#define QUEUED_FOLDS 256
/* A slot's key with this bit: its copies are being made (the key without it: ready). */
#define MAKING (1ull << 62)
/* Open MPI 4.1 starts the later rounds of an MPI_Comm_idup's communicator id agreement from
 * its progress engine, so that nonblocking collectives started meanwhile on the same
 * communicator can meet them in another order on another rank (libnbc truncation errors
 * with 10 sets of copies in flight and a blocking MPI_Comm_dup between, without tardy too),
 * and two idups and an Iallreduce of a new inter-communicator hung 1 run in 10 in
 * waits/semantics unchanged -n 4 (every rank waiting in MPI_Intercomm_create); and two idups
 * in flight on one communicator (Open MPI issue 2025: they can agree on different ids) left
 * one rank of four waiting for its copy of MPI_COMM_WORLD at MPI_Init, 1 run in 230 of
 * waits/neighbourhood collectives: there the copies are finished when they are started, each
 * collective before the next starts, an inter-communicator's with the blocking collectives. */
#ifdef OPEN_MPI
#define FINISH_AT_ONCE 1
#else
#define FINISH_AT_ONCE 0
#endif

struct msg_slot {
    _Atomic uint64_t key;   /* message handle + 1, 0 empty, 1 removed */
    MPI_Comm comm;
    struct ws_posted *posted;
};

/* A communicator's copies in the making: two MPI_Comm_idup and the agreement of its ranks
 * (MPI_Iallreduce), started at its creation (under Open MPI an inter-communicator's are
 * made there with the blocking calls, its requests null). */
struct making {
    MPI_Request req[3];     /* the shadow's idup, the answers' idup, the agreement */
    MPI_Comm shadow, ack;   /* the idups' results (MPI may write them at completion) */
    int ok[3], all[3];      /* this rank's part of the agreement, and the MIN over the ranks */
    atomic_int busy;        /* a thread is finishing them */
};

/* The shadows of the live communicators, and the messages of matched probes (ws_msgmap_*). */
static struct {
    struct ws_comm comm[COMM_SLOTS];
    struct making making[COMM_SLOTS];   /* comm[i]'s, while its key has MAKING */
    atomic_int live;   /* communicators with a shadow, made or being made */
    pthread_mutex_t lock;
    struct msg_slot msg[MSG_SLOTS];
    atomic_int full_warned, orphan_warned, msgs_warned;
    struct kept {
        unsigned gen;       /* 0: free */
        MPI_Comm shadow, ack;
        int lent;           /* the shadow is a closing exchange's too, which frees it last */
    } kept[KEPT_MAX];
    atomic_int nkept;
    atomic_int queued[QUEUED_FOLDS];    /* by any thread, ended ones too (ws_comm_queued) */
} shadows = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct ws_comm *finish(struct ws_comm *sc, uint64_t k);

/* ws_comm_find from slot i on, past a slot being made: key k's, made or being made (then
 * finished), or none. */
static struct ws_comm *find_past_making(uint32_t i, uint32_t n, uint64_t k)
{
    for (; n < COMM_SLOTS; i = (i + 1) & (COMM_SLOTS - 1), n++) {
        uint64_t s = atomic_load_explicit(&shadows.comm[i].key, memory_order_acquire);
        if (s == k)
            return &shadows.comm[i];
        if (s == (k | MAKING))
            return finish(&shadows.comm[i], k);
        if (s == 0)
            return NULL;
    }
    return NULL;
}

struct ws_comm *ws_comm_find(MPI_Comm comm)
{
    uint64_t k = ws_handle_key(&comm, sizeof comm);
    for (uint32_t i = ws_handle_slot(k, COMM_SLOTS - 1), n = 0; n < COMM_SLOTS;
         i = (i + 1) & (COMM_SLOTS - 1), n++) {
        uint64_t s = atomic_load_explicit(&shadows.comm[i].key, memory_order_acquire);
        if (s == k)
            return &shadows.comm[i];
        if (s == 0)
            return NULL;
        if (s >> 62) /* a shift: no constant to load before the loop, on the path of a hit */
            return find_past_making(i, n, k);
    }
    return NULL;
}

/* The slot of key k, made or being made, without finishing it (NULL: none). */
static struct ws_comm *lookup(uint64_t k)
{
    for (uint32_t i = ws_handle_slot(k, COMM_SLOTS - 1), n = 0; n < COMM_SLOTS;
         i = (i + 1) & (COMM_SLOTS - 1), n++) {
        uint64_t s = atomic_load(&shadows.comm[i].key);
        if (s == k || s == (k | MAKING))
            return &shadows.comm[i];
        if (s == 0)
            return NULL;
    }
    return NULL;
}

/* Does intra-communicator comm hold every rank of MPI_COMM_WORLD? The same answer on every
 * rank of comm (they share its group). */
static int spans_world(MPI_Comm comm, int size)
{
    int world_size = 0, same = MPI_UNEQUAL;
    MPI_Group g, wg;
    own_Comm_size(MPI_COMM_WORLD, &world_size);
    if (size != world_size || size < 2)
        return 0;
    own_Comm_group(comm, &g);
    own_Comm_group(MPI_COMM_WORLD, &wg);
    own_Group_compare(g, wg, &same);
    own_Group_free(&g);
    own_Group_free(&wg);
    return same == MPI_IDENT || same == MPI_SIMILAR;
}

static struct ws_comm *claim(uint64_t k)
{
    for (uint32_t i = ws_handle_slot(k, COMM_SLOTS - 1), n = 0; n < COMM_SLOTS;
         i = (i + 1) & (COMM_SLOTS - 1), n++) {
        uint64_t s = atomic_load(&shadows.comm[i].key);
        if (s == 0 || s == 1)
            return &shadows.comm[i];
    }
    return NULL;
}

/* Not a dup, which would run the application's attribute copy callbacks: a window's copy
 * (rma.c) is made from its communicator's group (MPI_Comm_create: one agreement on a
 * communicator id). Errors are returned, not fatal (no communicator ids left). */
MPI_Comm ws_comm_copy(MPI_Comm comm)
{
    MPI_Comm copy = MPI_COMM_NULL;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Group g = MPI_GROUP_NULL;
    own_Comm_get_errhandler(comm, &eh);
    own_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    own_Comm_group(comm, &g);
    if (own_Comm_create(comm, g, &copy) != MPI_SUCCESS)
        copy = MPI_COMM_NULL;
    own_Group_free(&g);
    own_Comm_set_errhandler(comm, eh);
    own_Errhandler_free(&eh);
    return copy;
}

void ws_comm_begin(MPI_Comm comm, struct ws_comm_new *n)
{
    *n = (struct ws_comm_new){.key = ws_handle_key(&comm, sizeof comm), .nbr_in = -1};
    n->size = 1;
    own_Comm_test_inter(comm, &n->inter);
    if (n->inter)
        own_Comm_remote_size(comm, &n->size);
    else
        own_Comm_size(comm, &n->size);
    own_Comm_rank(comm, &n->me);
    /* An intra-communicator of one rank (MPI_COMM_SELF, a singleton's world) has no other
     * rank to wait for: no copies, and no progress of tardy's in it (a singleton's MPICH,
     * once SIGUSR1 came, blocks in its progress engine waiting for a process manager). */
    n->alone = !n->inter && n->size <= 1;
    n->ok[0] = n->ok[1] = n->ok[2] = 1;
    if (n->alone)
        return;
    /* Reserve a slot under the lock (the handle is not the application's yet: no other
     * thread looks it up until the copies are started) */
    pthread_mutex_lock(&shadows.lock);
    n->slot = lookup(n->key) ? NULL : claim(n->key);
    if (n->slot)
        atomic_store(&n->slot->key, n->key | MAKING);
    pthread_mutex_unlock(&shadows.lock);
    /* blocking collectives of intra-communicators exchange in batches (batch.c) */
    n->batch = !n->inter ? ws_batch_new(comm) : NULL;
    /* with a topology: room for the in-neighbours' records of neighbourhood collectives */
    n->nbr_in = n->inter ? -1 : ws_topo_in(comm);
    n->nbuf = n->nbr_in >= 0 ? malloc((size_t)(n->nbr_in + 1) * sizeof *n->nbuf) : NULL;
    n->ok[0] = n->slot && (n->batch || n->inter) && atomic_load(&shadows.live) < WS_COMMS_MAX;
    n->ok[1] = !n->inter && spans_world(comm, n->size);
    n->ok[2] = n->nbr_in < 0 || n->nbuf;
}

void ws_comm_drop(struct ws_comm_new *n)
{
    if (n->slot)
        atomic_store(&n->slot->key, 1);
    free(n->batch);
    free(n->nbuf);
}

/* A nonblocking collective of the copies just started (rc): with FINISH_AT_ONCE finished
 * before the next one starts. */
static int started(int rc, MPI_Request *r)
{
    return rc == MPI_SUCCESS && FINISH_AT_ONCE ? yw_wait(r) : rc;
}

/* Start m's copies of from and, without all, the agreement on n->ok over from's ranks (those of
 * the new communicator); from's error handler returns errors meanwhile, and the copies inherit
 * it. The collectives cannot fail on some ranks only (a communicator id is agreed on). */
static void start(MPI_Comm from, const struct ws_comm_new *n, struct making *m, const int *all)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    own_Comm_get_errhandler(from, &eh);
    own_Comm_set_errhandler(from, MPI_ERRORS_RETURN);
    for (int i = 0; i < 3; i++)
        m->req[i] = MPI_REQUEST_NULL;
    memcpy(m->ok, n->ok, sizeof m->ok);
    if (all)
        memcpy(m->all, all, sizeof m->all);
    int blocking = FINISH_AT_ONCE && n->inter; /* then the requests stay null */
    int rc = blocking ? own_Comm_dup(from, &m->shadow)
                      : started(own_Comm_idup(from, &m->shadow, &m->req[0]), &m->req[0]);
    if (rc != MPI_SUCCESS)
        m->shadow = MPI_COMM_NULL;
    rc = blocking ? own_Comm_dup(from, &m->ack)
                  : started(own_Comm_idup(from, &m->ack, &m->req[1]), &m->req[1]);
    if (rc != MPI_SUCCESS)
        m->ack = MPI_COMM_NULL;
    if (!all) {
        rc = blocking ? own_Allreduce(m->ok, m->all, 3, MPI_INT, MPI_MIN, from)
                      : started(own_Iallreduce(m->ok, m->all, 3, MPI_INT, MPI_MIN, from,
                                               &m->req[2]), &m->req[2]);
        if (rc != MPI_SUCCESS)
            m->all[0] = 0;
    }
    own_Comm_set_errhandler(from, eh);
    own_Errhandler_free(&eh);
}

/* Wait for m's requests (yielding the core between tests); 1 when both copies were made and
 * every rank can track the communicator, else what was made is freed and the communicator
 * counted among those not measured (one warning). */
static int complete(struct making *m)
{
    if (yw_wait(&m->req[0]) != MPI_SUCCESS)
        m->shadow = MPI_COMM_NULL;
    if (yw_wait(&m->req[1]) != MPI_SUCCESS)
        m->ack = MPI_COMM_NULL;
    if (yw_wait(&m->req[2]) != MPI_SUCCESS)
        m->all[0] = 0;
    if (m->all[0] && m->shadow != MPI_COMM_NULL && m->ack != MPI_COMM_NULL)
        return 1;
    if (m->shadow != MPI_COMM_NULL)
        own_Comm_free(&m->shadow);
    if (m->ack != MPI_COMM_NULL)
        own_Comm_free(&m->ack);
    atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_COMMS], 1, memory_order_relaxed);
    tardy_warn_once(&shadows.full_warned, "too many communicators for wait-state tracking; "
                    "waits on further communicators are not measured");
    return 0;
}

void ws_comm_start(MPI_Comm from, struct ws_comm_new *n, const int all[3])
{
    if (n->alone)
        return;
    if (!n->ok[0]) {
        /* this rank cannot track it, so no rank will: its part of the collectives now */
        struct making m;
        start(from, n, &m, all);
        complete(&m);
        ws_comm_drop(n);
        return;
    }
    struct ws_comm *slot = n->slot;
    start(from, n, &shadows.making[slot - shadows.comm], all);
    slot->shadow = slot->ack = MPI_COMM_NULL;
    slot->nbr_in = n->nbr_in;
    slot->nbuf = n->nbuf;
    slot->inter = n->inter;
    slot->size = n->size;
    slot->batch = n->batch;
    static atomic_uint gens;
    slot->gen = atomic_fetch_add(&gens, 1) + 1;
    slot->rank = n->me;
    ws_clock_comm(slot);
    atomic_fetch_add(&shadows.live, 1);
    atomic_store(&slot->ncoll, 0);
    atomic_store_explicit(&slot->key, n->key | MAKING, memory_order_release);
    if (FINISH_AT_ONCE)
        finish(slot, n->key);
}

/* Make slot sc (key k | MAKING) ready with its copies, or give it back. */
static void settle(struct ws_comm *sc, uint64_t k)
{
    struct making *m = &shadows.making[sc - shadows.comm];
    if (!complete(m)) {
        free(sc->batch);
        free(sc->nbuf);
        sc->batch = NULL;
        sc->nbuf = NULL;
        atomic_fetch_sub(&shadows.live, 1);
        atomic_store_explicit(&sc->key, 1, memory_order_release);
        return;
    }
    sc->shadow = m->shadow;
    sc->ack = m->ack;
    sc->world = m->all[1];
    if (!m->all[2]) { /* some rank has no room for its neighbours' records */
        free(sc->nbuf);
        sc->nbuf = NULL;
        sc->nbr_in = -1;
    }
    atomic_store_explicit(&sc->key, k, memory_order_release);
}

/* The first use of communicator sc (key k) whose copies are being made: one thread finishes
 * them, the others wait for it; sc when they were made, NULL when not. Why this cannot
 * deadlock: every rank of the communicator started the copies and the agreement at the same
 * collective call (its creation), so they are matched; by MPI's progress rule they complete
 * once every rank has entered MPI since then (any call, on any communicator). A rank waiting
 * here waits only for that. The blocking copies this replaces made every rank wait at the
 * creation itself for all others to arrive there, which is never earlier. */
static struct ws_comm *finish(struct ws_comm *sc, uint64_t k)
{
    struct making *m = &shadows.making[sc - shadows.comm];
    while (atomic_load_explicit(&sc->key, memory_order_acquire) == (k | MAKING)) {
        if (atomic_exchange(&m->busy, 1)) {
            sched_yield();
            continue;
        }
        /* the slot may have been settled and reused since the test above */
        if (atomic_load(&sc->key) == (k | MAKING))
            settle(sc, k);
        atomic_store(&m->busy, 0);
    }
    return atomic_load_explicit(&sc->key, memory_order_acquire) == k ? sc : NULL;
}

/* Every slot's copies made (at finalize). */
static void settle_all(void)
{
    for (int i = 0; i < COMM_SLOTS; i++) {
        uint64_t k = atomic_load(&shadows.comm[i].key);
        if (k > 1 && (k & MAKING))
            finish(&shadows.comm[i], k & ~MAKING);
    }
}

void ws_comm_add(MPI_Comm comm, MPI_Comm dup_of)
{
    if (comm == MPI_COMM_NULL)
        return;
    /* A dup has the attributes of dup_of, whose copy callbacks a dup of it would run again:
     * its copies are made from dup_of's shadow (none: from nothing without attributes). */
    MPI_Comm from = comm;
    struct ws_comm_new n;
    ws_comm_begin(comm, &n);
    if (n.alone)
        return;
    if (dup_of != MPI_COMM_NULL) {
        struct ws_comm *parent = ws_comm_find(dup_of);
        if (!parent) {
            atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_COMMS], 1, memory_order_relaxed);
            tardy_warn_once(&shadows.orphan_warned, "waits on duplicates of communicators "
                            "without wait-state tracking are not measured");
            ws_comm_drop(&n);
            return;
        }
        from = parent->shadow;
    }
    ws_comm_start(from, &n, NULL);
}

void ws_comm_queued(unsigned gen, int d)
{
    atomic_int *q = &shadows.queued[gen & (QUEUED_FOLDS - 1)];
    if (ws_multiple)
        atomic_fetch_add_explicit(q, d, memory_order_relaxed);
    else /* one thread at a time: no locked instruction */
        atomic_store_explicit(q, atomic_load_explicit(q, memory_order_relaxed) + d,
                              memory_order_relaxed);
}

/* Does a receive still need shadow gen's records: posted, or queued in any thread? */
static int needed(unsigned gen)
{
    return atomic_load(&shadows.queued[gen & (QUEUED_FOLDS - 1)]) > 0 || ws_recvq_uses(gen);
}

/* Free the shadow communicators of s (the lock held), or, with keep, keep them by number
 * while receives on them are pending (MPI completes those after MPI_Comm_free). */
static void release(struct ws_comm *s, int keep)
{
    struct kept *k = NULL; /* its batches left before (ws_comm_free, ws_finish) */
    for (int i = 0; i < KEPT_MAX && !k && keep; i++)
        if (!shadows.kept[i].gen)
            k = &shadows.kept[i];
    if (k && s->shadow != MPI_COMM_NULL) {
        *k = (struct kept){.gen = s->gen, .shadow = s->shadow, .ack = s->ack, .lent = s->lent};
        atomic_fetch_add(&shadows.nkept, 1);
    } else {
        if (s->shadow != MPI_COMM_NULL && !s->lent)
            own_Comm_free(&s->shadow);
        own_Comm_free(&s->ack);
        ws_ps_forget(s->gen);
    }
    s->shadow = s->ack = MPI_COMM_NULL;
    s->lent = 0;
    free(s->nbuf);
    free(s->batch);
    s->batch = NULL;
    s->nbuf = NULL;
}

void ws_comm_remove(MPI_Comm comm)
{
    pthread_mutex_lock(&shadows.lock);
    struct ws_comm *s = lookup(ws_handle_key(&comm, sizeof comm));
    if (s) {
        release(s, needed(s->gen));
        atomic_store(&s->key, 1);
        atomic_fetch_sub(&shadows.live, 1);
    }
    pthread_mutex_unlock(&shadows.lock);
}

int ws_comm_pair(MPI_Comm comm, unsigned gen, MPI_Comm *shadow, MPI_Comm *ack)
{
    struct ws_comm *sc = ws_comm_find(comm);
    if (sc && sc->gen == gen) {
        *shadow = sc->shadow;
        *ack = sc->ack;
        return 0;
    }
    int found = -1;
    if (!atomic_load_explicit(&shadows.nkept, memory_order_relaxed))
        return -1;
    pthread_mutex_lock(&shadows.lock);
    for (int i = 0; i < KEPT_MAX && found < 0; i++)
        if (shadows.kept[i].gen == gen) {
            *shadow = shadows.kept[i].shadow;
            *ack = shadows.kept[i].ack;
            found = 1;
        }
    pthread_mutex_unlock(&shadows.lock);
    return found;
}

void ws_comm_unkeep(void)
{
    if (!atomic_load_explicit(&shadows.nkept, memory_order_relaxed))
        return;
    pthread_mutex_lock(&shadows.lock);
    for (int i = 0; i < KEPT_MAX; i++) {
        struct kept *k = &shadows.kept[i];
        if (k->gen && !needed(k->gen)) {
            ws_ps_forget(k->gen);
            pr_forget(k->shadow); /* its ranks were translated by the handle (p2p.c) */
            if (!k->lent)
                own_Comm_free(&k->shadow);
            own_Comm_free(&k->ack);
            k->gen = 0;
            atomic_fetch_sub(&shadows.nkept, 1);
        }
    }
    pthread_mutex_unlock(&shadows.lock);
}

int ws_comm_unlend(MPI_Comm shadow)
{
    int kept = 0;
    pthread_mutex_lock(&shadows.lock);
    for (int i = 0; i < KEPT_MAX && !kept; i++)
        if (shadows.kept[i].gen && shadows.kept[i].lent && shadows.kept[i].shadow == shadow)
            kept = 1, shadows.kept[i].lent = 0;
    for (int i = 0; i < COMM_SLOTS && !kept; i++) /* still live (closed at finalize) */
        if (atomic_load(&shadows.comm[i].key) > 1 && shadows.comm[i].lent &&
            shadows.comm[i].shadow == shadow)
            kept = 1, shadows.comm[i].lent = 0;
    pthread_mutex_unlock(&shadows.lock);
    return kept;
}

void ws_comm_drop_batches(void)
{
    pthread_mutex_lock(&shadows.lock);
    for (int i = 0; i < COMM_SLOTS; i++)
        if (atomic_load(&shadows.comm[i].key) > 1 && shadows.comm[i].shadow != MPI_COMM_NULL)
            ws_ps_drop(shadows.comm[i].shadow);
    for (int i = 0; i < KEPT_MAX; i++)
        if (shadows.kept[i].gen)
            ws_ps_drop(shadows.kept[i].shadow);
    pthread_mutex_unlock(&shadows.lock);
}

void ws_comm_fini(void)
{
    settle_all();
    pthread_mutex_lock(&shadows.lock);
    for (int i = 0; i < COMM_SLOTS; i++) {
        if (atomic_load(&shadows.comm[i].key) > 1)
            release(&shadows.comm[i], 0);
        atomic_store(&shadows.comm[i].key, 0);
    }
    for (int i = 0; i < KEPT_MAX; i++)
        if (shadows.kept[i].gen) {
            own_Comm_free(&shadows.kept[i].shadow);
            own_Comm_free(&shadows.kept[i].ack);
            shadows.kept[i].gen = 0;
        }
    atomic_store(&shadows.nkept, 0);
    for (int i = 0; i < QUEUED_FOLDS; i++)
        atomic_store(&shadows.queued[i], 0);
    for (int i = 0; i < MSG_SLOTS; i++)
        atomic_store(&shadows.msg[i].key, 0);
    atomic_store(&shadows.live, 0);
    pthread_mutex_unlock(&shadows.lock);
}

void ws_comm_each(void (*fn)(struct ws_comm *sc))
{
    settle_all();
    for (int i = 0; i < COMM_SLOTS; i++)
        if (atomic_load(&shadows.comm[i].key) > 1)
            fn(&shadows.comm[i]);
}

int ws_msgmap_put(MPI_Message m, MPI_Comm comm, struct ws_posted *posted)
{
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return -1;
    uint64_t k = ws_handle_key(&m, sizeof m);
    for (uint32_t i = ws_handle_slot(k, MSG_SLOTS - 1), n = 0; n < MSG_SLOTS;
         i = (i + 1) & (MSG_SLOTS - 1), n++) {
        uint64_t s = atomic_load(&shadows.msg[i].key);
        if ((s == 0 || s == 1) && atomic_compare_exchange_strong(&shadows.msg[i].key, &s, k | 1ull << 63)) {
            shadows.msg[i].comm = comm;
            shadows.msg[i].posted = posted;
            atomic_store(&shadows.msg[i].key, k);
            return 0;
        }
    }
    tardy_warn_once(&shadows.msgs_warned,
                    "too many matched-probe messages pending; some receives are not measured");
    return -1;
}

MPI_Comm ws_msgmap_take(MPI_Message m, struct ws_posted **posted)
{
    *posted = NULL;
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return MPI_COMM_NULL;
    uint64_t k = ws_handle_key(&m, sizeof m);
    for (uint32_t i = ws_handle_slot(k, MSG_SLOTS - 1), n = 0; n < MSG_SLOTS;
         i = (i + 1) & (MSG_SLOTS - 1), n++) {
        uint64_t s = atomic_load(&shadows.msg[i].key);
        if (s == k) {
            MPI_Comm c = shadows.msg[i].comm;
            struct ws_posted *p = shadows.msg[i].posted;
            if (atomic_compare_exchange_strong(&shadows.msg[i].key, &s, 1)) {
                *posted = p;
                return c;
            }
        }
        if (s == 0)
            break;
    }
    return MPI_COMM_NULL;
}
