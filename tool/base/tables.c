/* Open-addressing tables keyed by two 64-bit words. */
#include "base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tab_init(struct table *t, size_t row_size, void (*init_row)(void *row))
{
    memset(t, 0, sizeof *t);
    t->row_size = row_size;
    t->init_row = init_row;
}

void tab_free(struct table *t)
{
    free(t->rows);
    free(t->index);
    tab_init(t, t->row_size, t->init_row);
}

static int grow_index(struct table *t)
{
    uint32_t cap = t->mask ? (t->mask + 1) * 2 : 64;
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return -1;
    for (uint32_t i = 0; i < t->n; i++) {
        const uint64_t *key = tab_row(t, i);
        uint32_t s = tab_slot(key[0], key[1], cap - 1);
        while (idx[s])
            s = (s + 1) & (cap - 1);
        idx[s] = i + 1;
    }
    free(t->index);
    t->index = idx;
    t->mask = cap - 1;
    return 0;
}

/* Append a row for (k1, k2); returns its number, 0 when memory is short. */
static uint32_t append(struct table *t, uint64_t k1, uint64_t k2)
{
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 16;
        char *rows = realloc(t->rows, (size_t)cap * t->row_size);
        if (!rows)
            return 0;
        t->rows = rows;
        t->cap = cap;
    }
    uint64_t *row = tab_row(t, t->n);
    t->init_row(row);
    row[0] = k1;
    row[1] = k2;
    return ++t->n;
}

uint32_t tab_add(struct table *t, uint64_t k1, uint64_t k2)
{
    if ((t->n + 1) * 2 > (t->mask ? t->mask + 1 : 0) && grow_index(t) < 0)
        return 0;
    if (t->n >= TAB_MAX_ROWS - 1 && k1 != TAB_OVERFLOW_KEY)
        return tab_find(t, TAB_OVERFLOW_KEY, TAB_OVERFLOW_KEY);
    uint32_t s = tab_slot(k1, k2, t->mask);
    while (t->index[s])
        s = (s + 1) & t->mask;
    uint32_t i = append(t, k1, k2);
    t->index[s] = i;
    return i;
}

void mpi_row_init(void *row)
{
    struct mpi_row *r = row;
    memset(r, 0, sizeof *r);
    r->tmin = INFINITY;
}

void iv_row_init(void *row)
{
    struct iv_row *r = row;
    memset(r, 0, sizeof *r);
    r->tmin = INFINITY;
}

void peer_row_init(void *row)
{
    memset(row, 0, sizeof(struct peer_row));
}
