/* The JSON values of the `tardy` command (jansson's and cJSON's), from chunks of 256 KiB. A
 * profile of 1,000 intervals is some 150,000 small JSON values, each a malloc and a free of
 * its own; reading and freeing 10 of them for `tardy predict` was a fifth of its time in
 * malloc and free.
 * Here a value is a bump of a pointer, and a chunk goes back when its last value is freed,
 * so memory stays that of the documents alive. The command is single-threaded; the tool
 * inside MPI programs keeps both libraries' own allocator (the setting is global, and a
 * program may use jansson or cJSON itself, with values made before MPI_Finalize and freed
 * after). */
#include <cJSON.h>
#include <jansson.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "json_chunks.h"

/* Under AddressSanitizer each value stays a malloc of its own, for the sanitizer to watch. */
#ifndef __SANITIZE_ADDRESS__
#define CHUNK_SIZE ((size_t)256 << 10) /* a value kept alive keeps no more than this */
#define LARGE (CHUNK_SIZE / 8) /* bigger requests get a malloc of their own */

struct chunk {
    size_t used; /* bytes handed out from data */
    size_t live; /* allocations not freed yet */
    alignas(max_align_t) unsigned char data[];
};

/* in front of every allocation: its chunk, or NULL for one of its own */
struct head {
    struct chunk *chunk;
    alignas(max_align_t) unsigned char bytes[];
};

static struct chunk *current;

static void *chunk_malloc(size_t size)
{
    size_t need = (sizeof(struct head) + size + alignof(max_align_t) - 1) &
                  ~(alignof(max_align_t) - 1);
    if (size > LARGE) {
        struct head *h = size < SIZE_MAX - sizeof *h ? malloc(sizeof *h + size) : NULL;
        if (!h)
            return NULL;
        h->chunk = NULL;
        return h->bytes;
    }
    if (!current || current->used + need > CHUNK_SIZE) {
        if (current && current->live == 0)
            current->used = 0; /* nothing of it is in use: start it again */
        else {
            struct chunk *c = malloc(sizeof *c + CHUNK_SIZE);
            if (!c)
                return NULL;
            c->used = c->live = 0;
            current = c; /* the one before goes when its last value does */
        }
    }
    struct head *h = (struct head *)(current->data + current->used);
    current->used += need;
    current->live++;
    h->chunk = current;
    return h->bytes;
}

static void chunk_free(void *p)
{
    if (!p)
        return;
    struct head *h = (struct head *)((unsigned char *)p - offsetof(struct head, bytes));
    struct chunk *c = h->chunk;
    if (!c) {
        free(h);
        return;
    }
    if (--c->live > 0)
        return;
    if (c == current)
        c->used = 0;
    else
        free(c);
}

#endif

void json_chunks_use(void)
{
#ifndef __SANITIZE_ADDRESS__
    json_set_alloc_funcs(chunk_malloc, chunk_free);
    cJSON_Hooks hooks = {.malloc_fn = chunk_malloc, .free_fn = chunk_free};
    cJSON_InitHooks(&hooks);
#endif
}
