/* Lua's blocks of up to SMALL_MAX bytes from free lists per size (small_blocks.c), the rest
 * from malloc: the sandbox's allocator underneath its cap. */
#ifndef TARDY_LUA_SMALL_BLOCKS_H
#define TARDY_LUA_SMALL_BLOCKS_H

#include <stddef.h>

#define SMALL_STEP 16
#define SMALL_MAX 256

struct small_blocks {
    struct slab *slabs;
    struct free_block *free[SMALL_MAX / SMALL_STEP];
};

/* lua_Alloc's contract: nsize 0 frees ptr (osize bytes), ptr NULL allocates (osize is then
 * Lua's kind of object, not a size), else resizes; NULL where a block cannot be made or grow. */
void *small_realloc(struct small_blocks *p, void *ptr, size_t osize, size_t nsize);

/* Every block back to malloc; the pool is empty again. */
void small_release(struct small_blocks *p);

#endif
