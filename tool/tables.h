/* Per-thread tables of bounded size, filled on the hot path without locks:
 *   mpi rows      (MPI function, call path)            → count, time, bytes, durations
 *   interval rows (previous call site → next call site) → count, time, durations
 *   peer rows     world rank of the partner             → messages and bytes each way
 * Keys are pairs of 64-bit words; a table stops growing at TAB_MAX_ROWS and sends further
 * keys to one overflow row, so memory is bounded whatever the run length. */
#ifndef TARDY_TABLES_H
#define TARDY_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

#define TAB_MAX_ROWS (1u << 16)
#define TAB_OVERFLOW_KEY UINT64_MAX

/* A call site: MPI function id and call path id in one word. */
#define SITE(fn, cp) (((uint64_t)(fn) << 32) | (uint64_t)(cp))
#define SITE_FN(s) ((unsigned)((s) >> 32))
#define SITE_CP(s) ((uint32_t)(s))

struct mpi_row {
    uint64_t site, unused;
    uint64_t count;
    double time, tmin, tmax;
    int64_t sent, recv;
    struct hist calls;
};

struct iv_row {
    uint64_t from, to;
    uint64_t count;
    double time, tmin, tmax, sumsq;
    struct hist calls;
};

struct peer_row {
    uint64_t rank, unused;
    uint64_t sent_msgs, recv_msgs;
    int64_t sent_bytes, recv_bytes;
};

struct table {
    char *rows;          /* n rows of row_size bytes, each starting with its two key words */
    uint32_t n, cap;
    uint32_t *index;     /* open addressing: row number + 1, 0 = empty */
    uint32_t mask;
    size_t row_size;
    void (*init_row)(void *row);
};

void tab_init(struct table *t, size_t row_size, void (*init_row)(void *row));
void tab_free(struct table *t);
/* The row for (k1, k2), created if missing; the overflow row when the table is full;
 * NULL only when memory is exhausted. The pointer is valid until the next tab_get. */
void *tab_get(struct table *t, uint64_t k1, uint64_t k2);
static inline void *tab_row(const struct table *t, uint32_t i)
{
    return t->rows + (size_t)i * t->row_size;
}

void mpi_row_init(void *row);
void iv_row_init(void *row);
void peer_row_init(void *row);

#endif
