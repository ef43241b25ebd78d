/* Wait states, the receiver's side of point-to-point piggybacks: the batches each sender
 * sends on a shadow (pbatch.c), kept per sender as a stream of records in the order of its
 * sends. The k-th receive of a message with tag t from a sender takes the first record with
 * tag t it has not taken (MPI keeps messages of one sender, tag and communicator in order, and
 * recvq.c the receives in posting order), whatever the order in which the receives choose
 * tags. Batches are received whenever a record is asked for and not there yet (all that are in,
 * from every sender of the shadow); before finalize never waited for: a sender sends its
 * batch when it is full, old or the sender finalizes, and may be waiting for this rank
 * meanwhile. One table for the process (a receive in one thread may take the record a batch
 * received by another brought), under a lock at MPI_THREAD_MULTIPLE. */
#include "waits.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "ws_data.h"

#define GONE UINT_MAX  /* a stream's key after its communicator went: lookups go past it */

struct rec {
    int tag, taken;
    struct ws_wire w;
};

struct stream {
    unsigned gen;      /* 0: never used; GONE: freed */
    int source;
    int head, n, cap;  /* records [head, head + n) of a ring of cap (a power of two) */
    struct rec *r;
    int nskip;         /* blind receives' tags waiting for their record to drop it */
    int *skip;
};

static struct {
    pthread_mutex_t lock;
    struct stream *last;  /* the last one looked up (most receives come from one sender in a row) */
    struct stream *tab;
    unsigned cap, used;   /* used: keys ever set, GONE included */
    int64_t buf[WS_PB_BYTES / 8];
} ps = {.lock = PTHREAD_MUTEX_INITIALIZER};

static unsigned hash(unsigned gen, int source)
{
    uint64_t k = ((uint64_t)gen << 32 | (uint32_t)source) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(k >> 32);
}

static struct stream *lookup(unsigned gen, int source, int make);

static int grow(void)
{
    unsigned cap = ps.cap ? ps.cap * 2 : 64;
    struct stream *old = ps.tab, *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return -1;
    unsigned oldcap = ps.cap;
    ps.last = NULL;
    ps.tab = tab;
    ps.cap = cap;
    ps.used = 0;
    for (unsigned i = 0; i < oldcap; i++)
        if (old[i].gen && old[i].gen != GONE) {
            struct stream *s = lookup(old[i].gen, old[i].source, 1);
            *s = old[i];
        }
    free(old);
    return 0;
}

/* The stream of (gen, source); make: created if missing (NULL: out of memory). */
static struct stream *lookup(unsigned gen, int source, int make)
{
    struct stream *last = ps.last;
    if (last && last->gen == gen && last->source == source)
        return last;
    if (make && (ps.used + 1) * 2 > ps.cap && grow() < 0)
        return NULL;
    for (unsigned i = ps.cap ? hash(gen, source) & (ps.cap - 1) : 0, n = 0; n < ps.cap;
         i = (i + 1) & (ps.cap - 1), n++) {
        struct stream *s = &ps.tab[i];
        if (s->gen == gen && s->source == source)
            return ps.last = s;
        if (!s->gen) {
            if (!make)
                return NULL;
            ps.used++;
            *s = (struct stream){.gen = gen, .source = source};
            return ps.last = s;
        }
    }
    return NULL;
}

static struct rec *at(struct stream *s, int i)
{
    return &s->r[(s->head + i) & (s->cap - 1)];
}

/* Take the first record with tag from s into out (NULL: dropped). 1: there was one. */
static int pick(struct stream *s, int tag, struct ws_wire *out)
{
    for (int i = 0; s && i < s->n; i++) {
        struct rec *r = at(s, i);
        if (r->taken || r->tag != tag)
            continue;
        if (out)
            memcpy(out, &r->w, ws_wire_bytes(r->w.eh));
        r->taken = 1;
        while (s->n && at(s, 0)->taken) {
            s->head = (s->head + 1) & (s->cap - 1);
            s->n--;
        }
        return 1;
    }
    return 0;
}

static void append(struct stream *s, int tag, const unsigned char *wire, size_t bytes)
{
    for (int i = 0; i < s->nskip; i++)
        if (s->skip[i] == tag) { /* a blind receive's: dropped */
            s->skip[i] = s->skip[--s->nskip];
            return;
        }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        struct rec *r = malloc((size_t)cap * sizeof *r);
        if (!r)
            return; /* its receive finds no record: not judged */
        for (int i = 0; i < s->n; i++)
            r[i] = *at(s, i);
        free(s->r);
        s->r = r;
        s->cap = cap;
        s->head = 0;
    }
    struct rec *r = at(s, s->n++);
    r->tag = tag;
    r->taken = 0;
    memcpy(&r->w, wire, bytes);
}

/* File the records of one batch from source. */
static void parse(unsigned gen, int source, int bytes)
{
    struct stream *s = lookup(gen, source, 1);
    const unsigned char *p = (const unsigned char *)ps.buf, *end = p + bytes;
    while (s && p + 16 <= end) {
        int64_t head, eh;
        memcpy(&head, p, sizeof head);
        memcpy(&eh, p + 8, sizeof eh);
        size_t len = ws_wire_bytes(eh);
        if (len > sizeof(struct ws_wire) || p + 8 + len > end)
            return; /* not a batch of tardy's */
        append(s, (int)(uint32_t)head, p + 8, len);
        p += 8 + (len + 7) / 8 * 8;
    }
}

/* Receive the batches on shadow that are in (block: one from source, waiting for it; else up
 * to the first from source, MPI_ANY_SOURCE: all) into the streams of shadow gen (0: dropped).
 * Returns how many. */
static int drain(unsigned gen, MPI_Comm shadow, int source, int block)
{
    int got = 0;
    for (;;) {
        int flag = 1, bytes = 0;
        MPI_Message m;
        MPI_Status st;
        if (block)
            own_Mprobe(source, WS_PB_TAG, shadow, &m, &st);
        else if (own_Improbe(MPI_ANY_SOURCE, WS_PB_TAG, shadow, &flag, &m, &st) != MPI_SUCCESS)
            flag = 0;
        if (!flag)
            return got;
        MPI_Get_count(&st, MPI_BYTE, &bytes); /* not wrapped: no hook */
        if (bytes < 0 || bytes > WS_PB_BYTES)
            bytes = 0;
        own_Mrecv(ps.buf, (int)sizeof ps.buf, MPI_BYTE, &m, MPI_STATUS_IGNORE);
        if (gen)
            parse(gen, st.MPI_SOURCE, bytes);
        got++;
        if (block || st.MPI_SOURCE == source)
            return got;
    }
}

int ws_ps_take(unsigned gen, MPI_Comm shadow, int source, int tag, struct ws_wire *out,
               int block)
{
    ws_mt_lock(&ps.lock);
    int found = pick(lookup(gen, source, 0), tag, out);
    while (!found && drain(gen, shadow, source, 0))
        found = pick(lookup(gen, source, 0), tag, out);
    while (!found && block) {
        drain(gen, shadow, source, 1);
        found = pick(lookup(gen, source, 0), tag, out);
    }
    ws_mt_unlock(&ps.lock);
    return found;
}

void ws_ps_drop(MPI_Comm shadow)
{
    ws_mt_lock(&ps.lock);
    drain(0, shadow, MPI_ANY_SOURCE, 0);
    ws_mt_unlock(&ps.lock);
}

void ws_ps_skip(unsigned gen, int source, int tag)
{
    ws_mt_lock(&ps.lock);
    struct stream *s = lookup(gen, source, 1);
    if (s && !pick(s, tag, NULL)) {
        int *k = realloc(s->skip, (size_t)(s->nskip + 1) * sizeof *k);
        if (k) {
            s->skip = k;
            s->skip[s->nskip++] = tag;
        }
    }
    ws_mt_unlock(&ps.lock);
}

static void drop(struct stream *s)
{
    ps.last = NULL;
    free(s->r);
    free(s->skip);
    *s = (struct stream){.gen = GONE, .source = -1};
}

void ws_ps_forget(unsigned gen)
{
    ws_mt_lock(&ps.lock);
    for (unsigned i = 0; i < ps.cap; i++)
        if (ps.tab[i].gen == gen)
            drop(&ps.tab[i]);
    ws_mt_unlock(&ps.lock);
}

void ws_ps_fini(void)
{
    ws_mt_lock(&ps.lock);
    for (unsigned i = 0; i < ps.cap; i++)
        if (ps.tab[i].gen && ps.tab[i].gen != GONE)
            drop(&ps.tab[i]);
    free(ps.tab);
    ps.tab = NULL;
    ps.last = NULL;
    ps.cap = ps.used = 0;
    ws_mt_unlock(&ps.lock);
}
