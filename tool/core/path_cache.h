/* The per-thread cache of recent call paths (path_cache.c), for callpath.c: internal to
 * tool/core. The lookup is inline here: cs_capture runs it at every MPI call.
 *
 * The cache is keyed by the call site (the wrapper's return address) and the wrapper's stack
 * position. A hit is confirmed by re-reading the stack slots where the unwinder found each
 * return address: the same call site at the same stack position with the same return
 * addresses in the same slots is the same chain of callers (each frame's layout follows from
 * its return address), so a hit costs a few loads instead of an unwind (≈ 800 instructions).
 * Set-associative, PCACHE_WAYS ways per set, the least recently used way replaced: with one
 * way per set, two hot call sites whose keys fell into the same set (about 1 layout of the
 * program in 20) evicted each other at every call, and every call unwound (40x the cost).
 * A set's keys sit together, apart from the ways' frames, so that a lookup reads one line of
 * keys and then only the way it hits. */
#ifndef TARDY_CORE_PATH_CACHE_H
#define TARDY_CORE_PATH_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define PCACHE_SETS 64
#define PCACHE_WAYS 4
/* A way's frames are checked PCACHE_UNROLL at a time (pcache_frames_hold), the last frame
 * repeated to fill the last group (reading one slot twice is harmless). */
#define PCACHE_UNROLL 4

/* The keys of a set's ways; sp 0 marks an empty way (no stack lies at address 0). */
struct pcache_set {
    uintptr_t ra[PCACHE_WAYS], sp[PCACHE_WAYS];
    uint32_t used[PCACHE_WAYS]; /* the thread's lookups at the way's last hit or fill (wraps
                                 * after 2^32 lookups: one wrong choice of the way to
                                 * replace then, no harm) */
};

struct pcache_frame {
    uintptr_t at, pc; /* return address pc is expected at stack address at */
};

struct path_way {
    uint32_t id;
    int n;                         /* frames, a multiple of PCACHE_UNROLL */
    struct pcache_frame frame[];   /* up to the depth rounded up to PCACHE_UNROLL */
};

struct path_cache {
    struct pcache_set *sets; /* PCACHE_SETS; NULL until the thread's first miss */
    char *ways;              /* PCACHE_SETS × PCACHE_WAYS, pcache_way_bytes each */
    uint32_t clock;
};
extern _Thread_local struct path_cache pcache;
extern size_t pcache_way_bytes;

/* Size the ways for paths of up to depth frames (at cs_init, before any lookup). */
void pcache_init(int depth);

static inline struct path_way *pcache_way(size_t set, int w)
{
    return (struct path_way *)(pcache.ways + (set * PCACHE_WAYS + (size_t)w) * pcache_way_bytes);
}

/* Does the stack slot still hold the frame's return address? 0 when it does. */
static inline uintptr_t pcache_differs(const struct pcache_frame *f)
{
    return *(const uintptr_t *)f->at ^ f->pc;
}

/* Do the stack slots still hold the way's return addresses? One branch for all frames. */
static inline int pcache_frames_hold(const struct path_way *e)
{
    uintptr_t diff = 0;
    for (const struct pcache_frame *f = e->frame, *end = f + e->n; f < end; f += PCACHE_UNROLL)
        diff |= pcache_differs(f) | pcache_differs(f + 1) | pcache_differs(f + 2) |
                pcache_differs(f + 3);
    return diff == 0;
}

/* The path id cached for the call from return address ra whose wrapper's frame holds sp, or
 * 0 when none is; *way is then the way to fill with pcache_put (NULL before the thread's
 * cache exists: pcache_put makes it). */
static inline uint32_t pcache_get(uintptr_t ra, uintptr_t sp, struct path_way **way)
{
    *way = NULL;
    if (__builtin_expect(!pcache.sets, 0))
        return 0;
    uintptr_t h = (ra ^ (sp * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    size_t set = (h >> 40) % PCACHE_SETS;
    struct pcache_set *s = &pcache.sets[set];
    uint32_t now = ++pcache.clock;
    for (int w = 0; w < PCACHE_WAYS; w++)
        if (s->ra[w] == ra && s->sp[w] == sp) {
            s->used[w] = now;
            *way = pcache_way(set, w);
            return pcache_frames_hold(*way) ? (*way)->id : 0;
        }
    int oldest = 0;
    for (int w = 1; w < PCACHE_WAYS; w++)
        if (s->used[w] < s->used[oldest])
            oldest = w;
    s->used[oldest] = now;
    *way = pcache_way(set, oldest);
    return 0;
}

/* Remember path id (ids 0 and 1 are not cached) of n frames for (ra, sp) in way, or, when
 * way is NULL, in the way pcache_get would choose once the thread's cache exists: pc[i] is
 * the return address the unwinder read at stack address slot[i]. A path with a slot unknown
 * (0) is not cached. */
void pcache_put(struct path_way *way, uintptr_t ra, uintptr_t sp, uint32_t id,
                const uintptr_t *pc, const uintptr_t *slot, int n);

#endif
