/* Wait states, the sender's side of point-to-point piggybacks: a send's record (wire.c)
 * waits in its destination's batch and leaves with up to WS_PB_RECS - 1 others in one message
 * on the shadow, instead of a message of its own after every send. A halo exchange sends each
 * neighbour one message a step, so the records of WS_PB_RECS steps share one message; an
 * extra message per send had cost the 26-neighbour halo at 8 ranks 3-6% of its steps.
 *
 * A batch leaves when it is full, when a synchronous send's record joins it (its sender waits
 * for the answer), when its communicator is freed, at finalize, and when the oldest record
 * waiting anywhere is WS_PB_AGE old (checked at sends and collectives), so that a receiver's
 * queue of receives waiting for their records stays short. Receivers never block on a record
 * before finalize (pstream.c), so holding them cannot deadlock. One table for the process,
 * under a lock at MPI_THREAD_MULTIPLE, where every record leaves at once (ws_multiple). */
#include "waits.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "ws_data.h"

#define PB_SLOTS 256   /* destinations with records waiting at once (a power of two) */
#define PB_PROBE 16    /* slots looked at for one; all taken: the first one's batch leaves */
#define PB_AGE 0.5     /* seconds a record may wait */
#define PB_SPARE 16    /* sent buffers kept for reuse */

/* A batch's bytes, first waiting in its slot, then in flight (sent list). */
struct block {
    MPI_Request req;
    struct block *next;
    int64_t words[WS_PB_BYTES / 8];
};

struct batch {
    unsigned gen;                  /* of the shadow; 0: slot free */
    int dest, nrec, nbytes;
    MPI_Comm shadow;
    unsigned epoch;                /* batches sent from this slot: records are named by it */
    MPI_Request user[WS_PB_RECS];  /* each record's nonblocking send (cancel), or NULL, */
    uint64_t seq[WS_PB_RECS];      /* ... and its number: the latest of a reused handle's */
    int off[WS_PB_RECS];           /* each record's offset in bytes */
    struct block *b;
};

static struct {
    pthread_mutex_t lock;
    struct batch slot[PB_SLOTS];
    atomic_int open;               /* slots with records (read without the lock: a hint) */
    _Atomic double oldest;         /* when the oldest waiting record may have been added */
    struct block *sent, *spare;
    int nspare;
    uint64_t seq;                  /* records added */
    struct batch *last;            /* the last one added to (most sends go to one rank in a row) */
} pb = {.lock = PTHREAD_MUTEX_INITIALIZER};

int ws_multiple;

/* The last record this thread added (ws_pb_user names its request). */
static _Thread_local struct {
    struct batch *at;
    unsigned epoch;
    int rec;
} last;

static struct block *block_get(void)
{
    struct block *b = pb.spare;
    if (b) {
        pb.spare = b->next;
        pb.nspare--;
    } else if (!(b = malloc(sizeof *b))) {
        return NULL;
    }
    b->req = MPI_REQUEST_NULL;
    return b;
}

/* Free the sent blocks whose sends completed; at the end (every rank has taken the records
 * it waited for), all: a batch no receive asked for is cancelled (MPICH completes a send to
 * the rank itself only once it is received). */
static void reap(int end)
{
    for (struct block **p = &pb.sent; *p;) {
        struct block *b = *p;
        int done = 1;
        if (end) {
            own_Cancel(&b->req);
            own_Wait(&b->req, MPI_STATUS_IGNORE);
        } else {
            own_Test(&b->req, &done, MPI_STATUS_IGNORE);
        }
        if (!done) {
            p = &b->next;
            continue;
        }
        *p = b->next;
        if (pb.nspare < PB_SPARE) {
            b->next = pb.spare;
            pb.spare = b;
            pb.nspare++;
        } else {
            free(b);
        }
    }
}

/* Send batch s (it has records) and empty it; free: its slot too. The blocks sent before
 * are looked at first: this one's send has not completed yet (its receiver has not even
 * seen it), a test of it would be an MPI call for nothing. */
static void flush(struct batch *s, int free_slot)
{
    struct block *b = s->b;
    reap(0);
    own_Isend(b->words, s->nbytes, MPI_BYTE, s->dest, WS_PB_TAG, s->shadow, &b->req);
    b->next = pb.sent;
    pb.sent = b;
    s->b = NULL;
    s->nrec = s->nbytes = 0;
    s->epoch++;
    pb.open--;
    if (free_slot)
        s->gen = 0;
}

static unsigned hash(unsigned gen, int dest)
{
    uint64_t k = ((uint64_t)gen << 32 | (uint32_t)dest) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(k >> 40) & (PB_SLOTS - 1);
}

/* The slot of (gen, dest), claimed if new; all taken: the first one looked at, its batch sent. */
static struct batch *slot_of(unsigned gen, int dest, MPI_Comm shadow)
{
    if (pb.last && pb.last->gen == gen && pb.last->dest == dest)
        return pb.last;
    unsigned h = hash(gen, dest);
    struct batch *spare = NULL;
    for (unsigned i = 0; i < PB_PROBE; i++) {
        struct batch *s = &pb.slot[(h + i) & (PB_SLOTS - 1)];
        if (s->gen == gen && s->dest == dest)
            return pb.last = s;
        if (!spare && (!s->gen || !s->nrec))
            spare = s;
    }
    if (!spare) {
        spare = &pb.slot[h];
        flush(spare, 1);
    }
    spare->gen = gen;
    spare->dest = dest;
    spare->shadow = shadow;
    spare->nrec = spare->nbytes = 0;
    return pb.last = spare;
}

/* Record p (bytes long) of a send with tag at dst, as pstream.c reads it: the tag in a word of
 * its own, then the piggyback, padded to whole words. Returns its length. */
static int put(unsigned char *dst, int tag, const struct ws_wire *p, int bytes)
{
    int64_t head = (int64_t)(uint32_t)tag;
    memcpy(dst, &head, sizeof head);
    memcpy(dst + 8, p, (size_t)bytes);
    return 8 + (bytes + 7) / 8 * 8;
}

void ws_pb_add(unsigned gen, MPI_Comm shadow, int dest, int tag, const struct ws_wire *p,
               int bytes, int sync, double now)
{
    ws_mt_lock(&pb.lock);
    struct batch *s = slot_of(gen, dest, shadow);
    if (s->nrec == WS_PB_RECS || s->nbytes + 8 + bytes > WS_PB_BYTES)
        flush(s, 0); /* full: sent when the next record comes, so that the last can still be
                      * withdrawn should its send be cancelled */
    if (!s->b && !(s->b = block_get())) { /* no memory: this record alone, at once */
        int64_t one[1 + sizeof *p / 8];
        own_Send(one, put((unsigned char *)one, tag, p, bytes), MPI_BYTE, dest, WS_PB_TAG,
                 shadow);
        last.at = NULL;
        ws_mt_unlock(&pb.lock);
        return;
    }
    if (!s->nrec && !pb.open++)
        pb.oldest = now;
    s->off[s->nrec] = s->nbytes;
    s->user[s->nrec] = MPI_REQUEST_NULL;
    s->seq[s->nrec] = ++pb.seq;
    last.at = s;
    last.epoch = s->epoch;
    last.rec = s->nrec++;
    s->nbytes += put((unsigned char *)s->b->words + s->nbytes, tag, p, bytes);
    if (sync || ws_multiple)
        flush(s, 0);
    ws_mt_unlock(&pb.lock);
}

void ws_pb_user(MPI_Request user)
{
    if (!last.at)
        return;
    ws_mt_lock(&pb.lock);
    if (last.at->epoch == last.epoch && last.rec < last.at->nrec)
        last.at->user[last.rec] = user;
    ws_mt_unlock(&pb.lock);
    last.at = NULL;
}

/* The slot and record of user's send while its record waits (NULL: gone or unknown); MPI
 * reuses the handles of completed requests: the latest record with it. */
static struct batch *find_user(MPI_Request user, int *rec)
{
    struct batch *found = NULL;
    for (int i = 0; i < PB_SLOTS; i++) {
        struct batch *s = &pb.slot[i];
        for (int r = 0; s->gen && r < s->nrec; r++)
            if (s->user[r] == user && (!found || s->seq[r] > found->seq[*rec])) {
                *rec = r;
                found = s;
            }
    }
    return found;
}

int ws_pb_waiting(MPI_Request user)
{
    int rec;
    ws_mt_lock(&pb.lock);
    int found = find_user(user, &rec) != NULL;
    ws_mt_unlock(&pb.lock);
    return found;
}

int ws_pb_withdraw(MPI_Request user)
{
    int rec;
    ws_mt_lock(&pb.lock);
    struct batch *s = find_user(user, &rec);
    if (s) { /* the later records move up over it */
        int from = s->off[rec], len = (rec + 1 < s->nrec ? s->off[rec + 1] : s->nbytes) - from;
        unsigned char *base = (unsigned char *)s->b->words;
        memmove(base + from, base + from + len, (size_t)(s->nbytes - from - len));
        for (int r = rec; r + 1 < s->nrec; r++) {
            s->off[r] = s->off[r + 1] - len;
            s->user[r] = s->user[r + 1];
            s->seq[r] = s->seq[r + 1];
        }
        s->nbytes -= len;
        if (!--s->nrec)
            pb.open--;
        s->epoch++; /* record numbers changed: a later ws_pb_user finds nothing */
    }
    ws_mt_unlock(&pb.lock);
    return s != NULL;
}

void ws_pb_tick(void)
{
    if (!atomic_load_explicit(&pb.open, memory_order_relaxed))
        return;
    double now = clk_now();
    if (now - atomic_load_explicit(&pb.oldest, memory_order_relaxed) < PB_AGE)
        return;
    ws_mt_lock(&pb.lock);
    for (int i = 0; i < PB_SLOTS && pb.open; i++)
        if (pb.slot[i].gen && pb.slot[i].nrec)
            flush(&pb.slot[i], 0);
    pb.oldest = now;
    ws_mt_unlock(&pb.lock);
}

void ws_pb_flush(unsigned gen)
{
    ws_mt_lock(&pb.lock);
    for (int i = 0; i < PB_SLOTS; i++) {
        struct batch *s = &pb.slot[i];
        if (s->gen && (!gen || s->gen == gen)) {
            if (s->nrec)
                flush(s, 1);
            s->gen = 0;
        }
    }
    ws_mt_unlock(&pb.lock);
}

void ws_pb_fini(void)
{
    ws_mt_lock(&pb.lock);
    reap(1);
    for (int i = 0; i < PB_SLOTS; i++) {
        free(pb.slot[i].b);
        pb.slot[i] = (struct batch){0};
    }
    while (pb.spare) {
        struct block *b = pb.spare;
        pb.spare = b->next;
        free(b);
    }
    pb.nspare = pb.open = 0;
    ws_mt_unlock(&pb.lock);
}
