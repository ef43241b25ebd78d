/* The point-to-point piggyback on the wire: the enter time in nanoseconds since the common
 * reference time with a small head (region count, flags) in one word, then the ledger's
 * hotspot regions only. A region under the hotspot share of the ledger's total never takes
 * part in a root cause (thread.c), and every region sent is over that share of their own sum
 * too: the receiver takes the sum as the total and finds the same causes. The sender's rank
 * is not sent: the receiver knows it from the status. The sender knows the receiver, so it
 * sends only the regions since its last synchronisation with it (sections.c). With one
 * hotspot region (the common case between synchronisation points) a piggyback is 24 bytes,
 * which fits the short-message path of MPICH over UCX (28 bytes). Collectives carry the whole
 * record (struct ws_msg) as one MPI datatype, and reduce with an operation that keeps the
 * later record. */
#include "ws_data.h"

#include <math.h>

#include "mpit/own/own.h"

#define HEAD_BITS 8
#define NREG_MASK 15
#define FLAGS_SHIFT 4   /* WS_WIRE_* above the region count */
#define T_MAX ((double)(INT64_MAX >> HEAD_BITS))

double ws_base;
/* The record as an MPI datatype, and the operation keeping the later one. */
static struct {
    MPI_Datatype type;
    MPI_Op later;
} rec = {MPI_DATATYPE_NULL, MPI_OP_NULL};

/* Keep the later record (ties: the lower rank, so the result is order-independent). */
static void later(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    struct ws_msg *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (ws_later_than(&a[i], &b[i]))
            b[i] = a[i];
}

void ws_wire_init(void)
{
    own_Type_contiguous((int)sizeof(struct ws_msg), MPI_BYTE, &rec.type);
    own_Type_commit(&rec.type);
    own_Op_create(later, 1, &rec.later);
}

void ws_wire_fini(void)
{
    if (rec.type != MPI_DATATYPE_NULL)
        own_Type_free(&rec.type);
    if (rec.later != MPI_OP_NULL)
        own_Op_free(&rec.later);
}

MPI_Datatype ws_msg_dtype(void)
{
    return rec.type;
}

MPI_Op ws_later(void)
{
    return rec.later;
}

int ws_wire_pack(const struct ws_led *led, int peer, double e, int sync, struct ws_wire *p)
{
    double ns = (e - ws_base) * 1e9, total;
    int chain;
    int64_t t = ns >= T_MAX ? (int64_t)T_MAX : ns <= -T_MAX ? -(int64_t)T_MAX : llrint(ns);
    int nled = ws_led_since(led, peer, p->reg, &total, &chain), n = 0;
    double floor_t = total * ws_hotspot_permille / 1000.0;
    for (int i = 0; i < nled; i++) /* in place: the hotspots keep their order */
        if (p->reg[i].t >= floor_t)
            p->reg[n++] = p->reg[i];
    int flags = (sync ? WS_WIRE_SYNC : 0) | (chain ? WS_WIRE_CHAIN : 0);
    p->eh = (int64_t)((uint64_t)t << HEAD_BITS) | n | flags << FLAGS_SHIFT;
    return (int)(sizeof p->eh + (size_t)n * sizeof *p->reg);
}

size_t ws_wire_bytes(int64_t eh)
{
    int n = (int)(eh & NREG_MASK);
    return n > WS_K ? sizeof(struct ws_wire) + 1 : sizeof eh + (size_t)n * sizeof(struct ws_reg);
}

int ws_wire_unpack(const struct ws_wire *p, int rank, struct ws_msg *m)
{
    int n = (int)(p->eh & NREG_MASK);
    if (n > WS_K)
        n = 0;
    m->e = ws_base + (double)(p->eh >> HEAD_BITS) * 1e-9;
    m->rank = rank;
    ws_led_reset(&m->led);
    m->led.nreg = n;
    m->led.slots[0] = (uint8_t)((1u << n) - 1);
    for (int i = 0; i < n; i++) { /* one or two, mostly: no memcpy */
        m->led.reg[i] = p->reg[i];
        m->led.sec_t[0] += p->reg[i].t;
    }
    return (int)(p->eh >> FLAGS_SHIFT) & (WS_WIRE_SYNC | WS_WIRE_CHAIN);
}
