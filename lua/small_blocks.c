/* Lua's small blocks from free lists per size, carved from slabs of 64 KiB. A prediction over
 * 1,000 intervals makes and frees some 800,000 blocks (tables, their parts, strings), most
 * of them under 256 bytes; through malloc and free they were 5% of `tardy predict`'s
 * instructions. Lua says the size of every block it frees or resizes (lua_Alloc's osize),
 * so a block needs no header. Freed blocks stay on their list for the next of their size
 * until the state closes: the pool holds the most the script had at once, which the
 * sandbox's cap bounds (the cap counts the bytes Lua asks for; a block takes up to 15 more). */
#include "small_blocks.h"

#include <stdlib.h>
#include <string.h>

#define SLAB_SIZE ((size_t)64 << 10)

struct slab {
    struct slab *next;
    size_t used;
    _Alignas(16) unsigned char data[];
};

struct free_block {
    struct free_block *next;
};

static int class_of(size_t size)
{
    return (int)((size + SMALL_STEP - 1) / SMALL_STEP) - 1;
}

static void *take(struct small_blocks *p, int c)
{
    struct free_block *b = p->free[c];
    if (b) {
        p->free[c] = b->next;
        return b;
    }
    size_t size = (size_t)(c + 1) * SMALL_STEP;
    if (!p->slabs || p->slabs->used + size > SLAB_SIZE) {
        struct slab *s = malloc(sizeof *s + SLAB_SIZE);
        if (!s)
            return NULL;
        s->next = p->slabs;
        s->used = 0;
        p->slabs = s;
    }
    void *at = p->slabs->data + p->slabs->used;
    p->slabs->used += size;
    return at;
}

static void give(struct small_blocks *p, void *ptr, size_t size)
{
    struct free_block *b = ptr;
    int c = class_of(size);
    b->next = p->free[c];
    p->free[c] = b;
}

void *small_realloc(struct small_blocks *p, void *ptr, size_t osize, size_t nsize)
{
    int small_old = ptr && osize <= SMALL_MAX, small_new = nsize <= SMALL_MAX;
    if (nsize == 0) {
        if (small_old)
            give(p, ptr, osize);
        else
            free(ptr);
        return NULL;
    }
    if (!ptr)
        return small_new ? take(p, class_of(nsize)) : malloc(nsize);
    if (!small_old && !small_new)
        return realloc(ptr, nsize);
    if (small_old && small_new && class_of(osize) == class_of(nsize))
        return ptr;
    void *q = small_new ? take(p, class_of(nsize)) : malloc(nsize);
    if (!q) /* Lua keeps the old block when a block cannot grow, and a shrink must not fail:
             * the old one serves (a malloc'd one then joins a free list for good) */
        return nsize <= osize ? ptr : NULL;
    memcpy(q, ptr, osize < nsize ? osize : nsize);
    if (small_old)
        give(p, ptr, osize);
    else
        free(ptr);
    return q;
}

void small_release(struct small_blocks *p)
{
    for (struct slab *s = p->slabs, *next; s; s = next) {
        next = s->next;
        free(s);
    }
    memset(p, 0, sizeof *p);
}
