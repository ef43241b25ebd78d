/* Wait states: the order receives were posted in. MPI matches the messages of one source and
 * tag to receives in the order the receives were posted, and their piggybacks arrive in that
 * order too, but a program may complete the receives in another order (two Irecvs, then a
 * Wait on the second). A completed receive is therefore held back while a receive posted
 * before it that could have matched its source and tag is still pending (that one matched an
 * earlier message), and released, in posting order, when none is left. One list for the
 * process under one lock; a blocking receive with nothing pending passes without it. */
#include "ws_data.h"

#include <pthread.h>
#include <stdlib.h>

#include "tool/base/base.h"

enum { PENDING, HELD };
/* Held receives at most: past it (an earlier receive is completed late, or never) they are
 * all released, in order, and their waits may be misattributed (one warning). */
#define HELD_MAX 256

/* The receives in posting order (pending and held), and spare entries. */
static struct {
    pthread_mutex_t lock;
    struct ws_posted *head, *tail, *spare;
    atomic_int npending;
    int nheld;
    atomic_int held_warned;
} q = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void unlink_node(struct ws_posted *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        q.head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        q.tail = p->prev;
    p->prev = p->next = NULL;
}

static void append(struct ws_posted *p)
{
    p->next = NULL;
    p->prev = q.tail;
    if (q.tail)
        q.tail->next = p;
    else
        q.head = p;
    q.tail = p;
}

static struct ws_posted *node(void)
{
    struct ws_posted *p = q.spare;
    if (p)
        q.spare = p->next;
    else
        p = malloc(sizeof *p);
    return p;
}

static int could_match(const struct ws_posted *p, unsigned gen, int source, int tag)
{
    return p->state == PENDING && p->gen == gen &&
           (p->source == MPI_ANY_SOURCE || p->source == source) &&
           (p->tag == MPI_ANY_TAG || p->tag == tag);
}

/* A pending receive before p (NULL: at the end) could have matched source and tag. */
static int blocked(const struct ws_posted *before, unsigned gen, int source, int tag)
{
    for (const struct ws_posted *e = before; e; e = e->prev)
        if (could_match(e, gen, source, tag))
            return 1;
    return 0;
}

/* Unlink the held receives nothing blocks any more, in order, into a chain. */
static struct ws_posted *releasable(int all)
{
    struct ws_posted *first = NULL, **end = &first;
    for (struct ws_posted *p = q.head, *next; p && q.nheld; p = next) {
        next = p->next;
        if (p->state != HELD ||
            (!all && blocked(p->prev, p->take.gen, p->take.source, p->take.tag)))
            continue;
        unlink_node(p);
        q.nheld--;
        *end = p;
        end = &p->next;
    }
    return first;
}

struct ws_posted *ws_recvq_post(unsigned gen, int source, int tag)
{
    pthread_mutex_lock(&q.lock);
    struct ws_posted *p = node();
    if (p) {
        p->gen = gen;
        p->source = source;
        p->tag = tag;
        p->state = PENDING;
        append(p);
        atomic_fetch_add_explicit(&q.npending, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&q.lock);
    return p;
}

int ws_recvq_uses(unsigned gen)
{
    int n = 0;
    pthread_mutex_lock(&q.lock);
    for (const struct ws_posted *p = q.head; p && !n; p = p->next)
        n = p->state == PENDING ? p->gen == gen : p->take.gen == gen;
    pthread_mutex_unlock(&q.lock);
    return n;
}

int ws_recvq_done(struct ws_posted *p, const struct ws_take *t, struct ws_posted **rel)
{
    *rel = NULL;
    if (!p && !atomic_load_explicit(&q.npending, memory_order_relaxed))
        return 0;
    int held = 0;
    pthread_mutex_lock(&q.lock);
    if (p) {
        p->state = HELD; /* no longer pending: it blocks nobody */
        atomic_fetch_sub_explicit(&q.npending, 1, memory_order_relaxed);
    }
    if (blocked(p ? p->prev : q.tail, t->gen, t->source, t->tag)) {
        struct ws_posted *h = p ? p : node();
        if (h) {
            h->take = *t;
            h->state = HELD;
            if (!p)
                append(h);
            q.nheld++;
            held = 1;
        }
        if (q.nheld > HELD_MAX) {
            *rel = releasable(1);
            tardy_warn_once(&q.held_warned, "more than %d receives completed while an earlier one "
                            "that could have matched them stays pending; waits on their "
                            "communicators may be misattributed", HELD_MAX);
        }
    } else if (p) {
        unlink_node(p);
        p->next = q.spare;
        q.spare = p;
    }
    if (!held && q.nheld)
        *rel = releasable(0);
    pthread_mutex_unlock(&q.lock);
    return held;
}

struct ws_posted *ws_recvq_drop(struct ws_posted *p)
{
    pthread_mutex_lock(&q.lock);
    atomic_fetch_sub_explicit(&q.npending, 1, memory_order_relaxed);
    unlink_node(p);
    p->next = q.spare;
    q.spare = p;
    struct ws_posted *rel = q.nheld ? releasable(0) : NULL;
    pthread_mutex_unlock(&q.lock);
    return rel;
}

struct ws_posted *ws_recvq_flush(void)
{
    pthread_mutex_lock(&q.lock);
    struct ws_posted *rel = releasable(1);
    pthread_mutex_unlock(&q.lock);
    return rel;
}

void ws_recvq_free(struct ws_posted *chain)
{
    if (!chain)
        return;
    pthread_mutex_lock(&q.lock);
    struct ws_posted *last = chain;
    while (last->next)
        last = last->next;
    last->next = q.spare;
    q.spare = chain;
    pthread_mutex_unlock(&q.lock);
}

static void free_chain(struct ws_posted *p)
{
    for (struct ws_posted *next; p; p = next) {
        next = p->next;
        free(p);
    }
}

void ws_recvq_fini(void)
{
    pthread_mutex_lock(&q.lock);
    free_chain(q.head);
    free_chain(q.spare);
    q.head = q.tail = q.spare = NULL;
    q.nheld = 0;
    atomic_store(&q.npending, 0);
    pthread_mutex_unlock(&q.lock);
}
