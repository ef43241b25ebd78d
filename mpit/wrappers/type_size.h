/* Bytes per element of a datatype and bytes in a status, for the byte counts of the wrappers
 * (bytes.h): the predefined datatypes' sizes and the status's count read without a call into
 * the MPI library where that is known to give its answer. In MPICH, MPI_Type_size_x costs
 * ≈ 50 instructions and MPI_Get_elements_x ≈ 125, at every send and receive. */
#ifndef TARDY_TYPE_SIZE_H
#define TARDY_TYPE_SIZE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "mpit/own/own.h"

/* The sizes of the predefined datatypes, found once (ts_fill): open addressing by handle,
 * handle 0 for an empty slot. Read-only once ts_state is TS_READY; a thread reads it once
 * ts_seen says it went through ts_fill's lock after the table was filled (a happens-before
 * helgrind sees: it does not model atomics, ci/threads). */
#define TS_SLOTS 256
struct ts_slot {
    uintptr_t type;
    MPI_Count size;
};
extern struct ts_slot ts_sizes[TS_SLOTS];
/* The status's count field holds its bytes (ts_fill checks it against MPI_Get_elements_x). */
extern int ts_raw_status;
enum { TS_UNKNOWN, TS_FILLING, TS_READY };
extern atomic_int ts_state;
extern _Thread_local int ts_seen;

/* Fill the table and check the status layout (one thread does, at the first use after
 * MPI_Init), or see that it was; returns whether they are ready. */
int ts_fill(void);

static inline uintptr_t ts_key(MPI_Datatype type)
{
    uintptr_t k = 0;
    _Static_assert(sizeof type <= sizeof k, "a datatype handle fits a word");
    memcpy(&k, &type, sizeof type);
    return k;
}

static inline unsigned ts_home(uintptr_t k)
{
    return (unsigned)(((uint64_t)k * 0x9e3779b97f4a7c15ull) >> 56) % TS_SLOTS;
}

static inline int ts_ready(void)
{
    return __builtin_expect(ts_seen, 1) || ts_fill();
}

/* The size of type in *size when it is a predefined datatype: 1; else 0. */
static inline int ts_known(MPI_Datatype type, MPI_Count *size)
{
    if (!ts_ready())
        return 0;
    uintptr_t k = ts_key(type);
    for (unsigned i = ts_home(k);; i = (i + 1) % TS_SLOTS) {
        if (ts_sizes[i].type == k) {
            *size = ts_sizes[i].size;
            return 1;
        }
        if (!ts_sizes[i].type)
            return 0;
    }
}

/* The status's count field: its bytes, as MPI_Get_elements_x with MPI_BYTE gives them, in
 * the layouts of MPICH (and its derivatives) and Open MPI; -1 elsewhere. */
static inline MPI_Count ts_status_field(const MPI_Status *st)
{
#if defined(MPICH)
    return (MPI_Count)(((uint64_t)((unsigned)st->count_hi_and_cancelled >> 1) << 32) |
                       (unsigned)st->count_lo);
#elif defined(OPEN_MPI)
    return (MPI_Count)st->_ucount;
#else
    (void)st;
    return -1;
#endif
}

#endif
