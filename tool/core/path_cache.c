/* The per-thread cache of recent call paths: its memory and its filling (the lookup is
 * inline in path_cache.h, which says how the cache works). */
#include "path_cache.h"

#include <stdlib.h>

_Thread_local struct path_cache pcache;
size_t pcache_way_bytes;

void pcache_init(int depth)
{
    size_t frames = ((size_t)depth + PCACHE_UNROLL - 1) / PCACHE_UNROLL * PCACHE_UNROLL;
    pcache_way_bytes = sizeof(struct path_way) + frames * sizeof(struct pcache_frame);
}

static int attach(void)
{
    /* calloc of this size maps fresh zero pages: only the ways used cost memory. */
    pcache.sets = calloc(PCACHE_SETS, sizeof *pcache.sets);
    pcache.ways = calloc(PCACHE_SETS * PCACHE_WAYS, pcache_way_bytes);
    if (pcache.sets && pcache.ways)
        return 1;
    free(pcache.sets);
    free(pcache.ways);
    pcache.sets = NULL;
    pcache.ways = NULL;
    return 0;
}

void pcache_put(struct path_way *way, uintptr_t ra, uintptr_t sp, uint32_t id,
                const uintptr_t *pc, const uintptr_t *slot, int n)
{
    if (!way) { /* the thread's first miss: its cache is made now */
        if (pcache.sets || !attach())
            return;
        pcache_get(ra, sp, &way);
    }
    size_t i = (size_t)((char *)way - pcache.ways) / pcache_way_bytes;
    struct pcache_set *s = &pcache.sets[i / PCACHE_WAYS];
    int w = (int)(i % PCACHE_WAYS);
    s->sp[w] = 0;
    if (id < 2 || n <= 0) /* CS_NONE, CS_OVERFLOW: no path of its own */
        return;
    int padded = (n + PCACHE_UNROLL - 1) / PCACHE_UNROLL * PCACHE_UNROLL;
    for (int k = 0; k < padded; k++) {
        int from = k < n ? k : n - 1;
        if (!slot[from])
            return;
        way->frame[k].at = slot[from];
        way->frame[k].pc = pc[from];
    }
    way->id = id;
    way->n = padded;
    s->ra[w] = ra;
    s->sp[w] = sp;
}
