/* The request table: what the wait-state protocol must do when a request completes (a
 * receive takes its piggyback, a persistent send posts one at each start, a synchronous send
 * awaits its answer, a cancelled send withdraws its piggyback, a nonblocking collective
 * finishes its exchange). Fixed size, open addressing, slots claimed with compare-and-swap; a
 * generation number makes removal safe when the library reuses a handle at once. Memory is
 * bounded; past the bound a request is not tracked (one warning). */
#include "ws_data.h"

#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"

#define RQ_SLOTS 8192

struct slot {
    _Atomic uint64_t key;   /* request handle + 2; 0 empty, 1 removed, bit 63: being written */
    atomic_uint gen;
    struct ws_rq rq;
};

static struct slot *slots;
static atomic_int rq_full_warned;
atomic_uint ws_unmeasured[WS_UM_KINDS];
atomic_int ws_rq_live;

static uint64_t key_of(MPI_Request r)
{
    return ws_handle_key(&r, sizeof r) & ~(1ull << 63);
}

int ws_rq_add(MPI_Request r, const struct ws_rq *rq)
{
    if (r == MPI_REQUEST_NULL)
        return -1;
    if (!slots && !(slots = calloc(RQ_SLOTS, sizeof *slots)))
        return -1;
    uint64_t k = key_of(r);
    for (uint32_t i = ws_handle_slot(k, RQ_SLOTS - 1), n = 0; n < RQ_SLOTS; i = (i + 1) & (RQ_SLOTS - 1), n++) {
        uint64_t s = atomic_load(&slots[i].key);
        if ((s == 0 || s == 1) &&
            atomic_compare_exchange_strong(&slots[i].key, &s, k | 1ull << 63)) {
            slots[i].rq = *rq;
            atomic_fetch_add(&slots[i].gen, 1);
            atomic_store(&slots[i].key, k);
            atomic_fetch_add(&ws_rq_live, 1);
            return 0;
        }
    }
    atomic_fetch_add_explicit(&ws_unmeasured[WS_UM_REQUESTS], 1, memory_order_relaxed);
    tardy_warn_once(&rq_full_warned, "more than %d requests pending; waits on further ones are "
                    "not measured", RQ_SLOTS);
    return -1;
}

int ws_rq_find(MPI_Request r, struct ws_rq_ref *out)
{
    out->slot = -1;
    if (r == MPI_REQUEST_NULL || !slots)
        return -1;
    uint64_t k = key_of(r);
    for (uint32_t i = ws_handle_slot(k, RQ_SLOTS - 1), n = 0; n < RQ_SLOTS; i = (i + 1) & (RQ_SLOTS - 1), n++) {
        uint64_t s = atomic_load(&slots[i].key);
        if (s == k) {
            out->gen = atomic_load(&slots[i].gen);
            out->rq = slots[i].rq;
            out->slot = (int)i;
            return 0;
        }
        if (s == 0)
            break;
    }
    return -1;
}

void ws_rq_remove(const struct ws_rq_ref *ref)
{
    if (ref->slot < 0)
        return;
    struct slot *s = &slots[ref->slot];
    uint64_t k = atomic_load(&s->key);
    if (k > 1 && !(k >> 63) && atomic_load(&s->gen) == ref->gen &&
        atomic_compare_exchange_strong(&s->key, &k, 1))
        atomic_fetch_sub(&ws_rq_live, 1);
}

void ws_rq_set(const struct ws_rq_ref *ref, const struct ws_rq *rq)
{
    if (ref->slot < 0)
        return;
    struct slot *s = &slots[ref->slot];
    uint64_t k = atomic_load(&s->key);
    if (k > 1 && !(k >> 63) && atomic_load(&s->gen) == ref->gen)
        s->rq = *rq;
}

void ws_rq_fini(void)
{
    free(slots);
    slots = NULL;
    atomic_store(&ws_rq_live, 0);
}
