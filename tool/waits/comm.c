/* Shadow communicators: two private copies (same groups, same ranks, same topology) per user
 * communicator, `shadow` for the piggybacks and collective exchanges and `ack` for the answers
 * to synchronous sends, found by the user's handle in a fixed table (lock-free lookups;
 * additions and removals take a lock, they happen only when communicators are created or
 * freed). Also the matched-probe message -> comm (and place in the posting order of receives)
 * map. */
#include "ws_exchange.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "tool/base/base.h"

#define COMM_SLOTS 512
/* Shadows (two communicators each) of at most this many live communicators: MPICH has 2048
 * communicator ids in all, and they are the application's first. */
#define WS_COMMS_MAX 128
#define MSG_SLOTS 1024
/* Shadows kept after their communicator was freed with receives pending, whose piggybacks
 * are still to come: at most this many (beyond, they go at once, and those piggybacks stay
 * unreceived, as MPI lets a freed communicator's pending messages be). */
#define KEPT_MAX 16

struct msg_slot {
    _Atomic uint64_t key;   /* message handle + 1, 0 empty, 1 removed */
    MPI_Comm comm;
    struct ws_posted *posted;
};

/* The shadows of the live communicators, and the messages of matched probes (ws_msgmap_*). */
static struct {
    struct ws_comm comm[COMM_SLOTS];
    atomic_int live;   /* communicators with a shadow */
    pthread_mutex_t lock;
    struct msg_slot msg[MSG_SLOTS];
    atomic_int full_warned, msgs_warned;
    struct kept {
        unsigned gen;       /* 0: free */
        MPI_Comm shadow, ack;
    } kept[KEPT_MAX];
    atomic_int nkept;
} shadows = {.lock = PTHREAD_MUTEX_INITIALIZER};

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

/* Not a dup, which would run the application's attribute copy callbacks: an intra-
 * communicator's copy is made from its group (MPI_Comm_create: one agreement on a
 * communicator id; a split costs an allgather of every rank's colour and key before it) or
 * by its topology's constructor, an inter-communicator's by a split. Errors are returned,
 * not fatal (no communicator ids left), and the copy inherits that error handler. */
MPI_Comm ws_comm_copy(MPI_Comm comm, int rank, const struct ws_topo *topo)
{
    MPI_Comm copy = MPI_COMM_NULL;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Group g = MPI_GROUP_NULL;
    int inter = 0, rc;
    own_Comm_test_inter(comm, &inter);
    own_Comm_get_errhandler(comm, &eh);
    own_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (topo) {
        copy = ws_topo_make(comm, topo);
        rc = copy != MPI_COMM_NULL ? MPI_SUCCESS : MPI_ERR_OTHER;
    } else if (inter) {
        rc = own_Comm_split(comm, 0, rank, &copy);
    } else {
        own_Comm_group(comm, &g);
        rc = own_Comm_create(comm, g, &copy);
        own_Group_free(&g);
    }
    if (rc != MPI_SUCCESS)
        copy = MPI_COMM_NULL;
    own_Comm_set_errhandler(comm, eh);
    own_Errhandler_free(&eh);
    return copy;
}

void ws_comm_begin(MPI_Comm comm, struct ws_comm_new *n)
{
    *n = (struct ws_comm_new){.key = ws_handle_key(&comm, sizeof comm)};
    /* Reserve a slot under the lock; the collective calls run outside it, so that two
     * threads creating communicators at once cannot deadlock across ranks. */
    pthread_mutex_lock(&shadows.lock);
    n->slot = ws_comm_find(comm) ? NULL : claim(n->key);
    if (n->slot)
        atomic_store(&n->slot->key, n->key | 1ull << 62);
    pthread_mutex_unlock(&shadows.lock);
    n->size = 1;
    own_Comm_test_inter(comm, &n->inter);
    if (n->inter)
        own_Comm_remote_size(comm, &n->size);
    else
        own_Comm_size(comm, &n->size);
    own_Comm_rank(comm, &n->me);
    /* blocking collectives of intra-communicators exchange in batches (batch.c) */
    n->batch = !n->inter && n->size > 1 ? ws_batch_new(comm) : NULL;
    /* with the topology, if any: neighbourhood collectives */
    n->has_topo = n->inter ? 0 : ws_topo_read(comm, &n->topo);
    n->ok[0] = n->slot && (n->batch || n->inter || n->size <= 1) &&
               atomic_load(&shadows.live) < WS_COMMS_MAX;
    n->ok[1] = !n->inter && spans_world(comm, n->size);
    n->ok[2] = n->has_topo >= 0;
}

void ws_comm_drop(struct ws_comm_new *n)
{
    if (n->slot)
        atomic_store(&n->slot->key, 1);
    free(n->batch);
    if (n->has_topo > 0) {
        ws_topo_free(&n->topo);
        free(n->topo.buf);
    }
}

int ws_comm_end(MPI_Comm comm, struct ws_comm_new *n, const int all[3])
{
    /* the copies fail on every rank or none (a communicator id is agreed on); without the
     * topology's copy (out of memory on some rank) neighbourhood waits are not measured */
    int with_topo = n->has_topo > 0 && all[2];
    MPI_Comm shadow = all[0] ? ws_comm_copy(comm, n->me, with_topo ? &n->topo : NULL)
                             : MPI_COMM_NULL;
    /* The answers' copy duplicates the shadow, which has no attributes to copy (a dup costs
     * 2/3 of a split: 150 against 235 ms at 8 ranks on 2 cores, load 20). */
    MPI_Comm ack = MPI_COMM_NULL;
    if (shadow != MPI_COMM_NULL && own_Comm_dup(shadow, &ack) != MPI_SUCCESS)
        ack = MPI_COMM_NULL;
    if (ack == MPI_COMM_NULL) {
        if (shadow != MPI_COMM_NULL)
            own_Comm_free(&shadow);
        ws_comm_drop(n);
        atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_COMMS], 1, memory_order_relaxed);
        tardy_warn_once(&shadows.full_warned, "too many communicators for wait-state tracking; "
                        "waits on further communicators are not measured");
        return -1;
    }
    struct ws_comm *slot = n->slot;
    slot->shadow = shadow;
    slot->ack = ack;
    slot->nbr_in = with_topo ? n->topo.in : -1;
    slot->nbuf = with_topo ? n->topo.buf : NULL;
    if (n->has_topo > 0) {
        ws_topo_free(&n->topo);
        if (!with_topo)
            free(n->topo.buf);
    }
    slot->inter = n->inter;
    slot->size = n->size;
    slot->batch = n->batch;
    static atomic_uint gens;
    slot->gen = atomic_fetch_add(&gens, 1) + 1;
    slot->rank = n->me;
    slot->world = all[1];
    ws_clock_comm(slot);
    atomic_fetch_add(&shadows.live, 1);
    atomic_store(&slot->ncoll, 0);
    atomic_store_explicit(&slot->key, n->key, memory_order_release);
    return 0;
}

int ws_comm_add(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return -1;
    struct ws_comm_new n;
    int all[3] = {0, 0, 0};
    ws_comm_begin(comm, &n);
    /* Every rank of comm must agree before the copies are made, or a partner would wait for
     * a piggyback forever. */
    own_Allreduce(n.ok, all, 3, MPI_INT, MPI_MIN, comm);
    return ws_comm_end(comm, &n, all);
}

/* Free the shadow communicators of s (the lock held), or, with keep, keep them by number
 * while receives on them are pending (MPI completes those after MPI_Comm_free). */
static void release(struct ws_comm *s, int keep)
{
    struct kept *k = NULL;
    for (int i = 0; i < KEPT_MAX && !k && keep && ws_recvq_uses(s->gen); i++)
        if (!shadows.kept[i].gen)
            k = &shadows.kept[i];
    if (k && s->shadow != MPI_COMM_NULL) {
        *k = (struct kept){.gen = s->gen, .shadow = s->shadow, .ack = s->ack};
        atomic_fetch_add(&shadows.nkept, 1);
    } else {
        if (s->shadow != MPI_COMM_NULL)
            own_Comm_free(&s->shadow);
        own_Comm_free(&s->ack);
    }
    s->shadow = s->ack = MPI_COMM_NULL;
    free(s->nbuf);
    free(s->batch);
    s->batch = NULL;
    s->nbuf = NULL;
}

void ws_comm_remove(MPI_Comm comm)
{
    pthread_mutex_lock(&shadows.lock);
    struct ws_comm *s = ws_comm_find(comm);
    if (s) {
        release(s, 1);
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

void ws_comm_taken(unsigned gen)
{
    if (!atomic_load_explicit(&shadows.nkept, memory_order_relaxed))
        return;
    pthread_mutex_lock(&shadows.lock);
    for (int i = 0; i < KEPT_MAX; i++) {
        struct kept *k = &shadows.kept[i];
        if (k->gen == gen && !ws_recvq_uses(gen)) {
            pr_forget(k->shadow); /* its ranks were translated by the handle (p2p.c) */
            own_Comm_free(&k->shadow);
            own_Comm_free(&k->ack);
            k->gen = 0;
            atomic_fetch_sub(&shadows.nkept, 1);
        }
    }
    pthread_mutex_unlock(&shadows.lock);
}

void ws_comm_fini(void)
{
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
    for (int i = 0; i < MSG_SLOTS; i++)
        atomic_store(&shadows.msg[i].key, 0);
    atomic_store(&shadows.live, 0);
    pthread_mutex_unlock(&shadows.lock);
}

void ws_comm_each(void (*fn)(struct ws_comm *sc))
{
    for (int i = 0; i < COMM_SLOTS; i++) {
        uint64_t k = atomic_load(&shadows.comm[i].key);
        if (k > 1 && !(k >> 62))
            fn(&shadows.comm[i]);
    }
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
