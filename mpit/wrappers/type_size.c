/* The predefined datatypes' sizes and the check of the status layout (type_size.h). */
#include "type_size.h"

#include <pthread.h>

struct ts_slot ts_sizes[TS_SLOTS];
int ts_raw_status;
atomic_int ts_state;
_Thread_local int ts_seen;
static pthread_mutex_t filling = PTHREAD_MUTEX_INITIALIZER;

/* The predefined datatypes of MPI-3.1 a call is likely to name (C, the pairs of MINLOC and
 * MAXLOC, the basic Fortran ones as C sees them); those an implementation lacks are
 * MPI_DATATYPE_NULL there and left out. The size of any other datatype is asked for at every
 * call. */
static const MPI_Datatype predefined[] = {
    MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG_INT, MPI_LONG_LONG, MPI_SIGNED_CHAR,
    MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
    MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL,
    MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
    MPI_UINT64_T, MPI_AINT, MPI_COUNT, MPI_OFFSET, MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX,
    MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_BYTE, MPI_PACKED, MPI_FLOAT_INT,
    MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_INTEGER,
    MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER,
    MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION};

static void add(MPI_Datatype type)
{
    MPI_Count size;
    uintptr_t k = ts_key(type);
    if (type == MPI_DATATYPE_NULL || !k || own_Type_size_x(type, &size) != MPI_SUCCESS)
        return;
    unsigned i = ts_home(k);
    while (ts_sizes[i].type && ts_sizes[i].type != k) /* some names share a handle */
        i = (i + 1) % TS_SLOTS;
    ts_sizes[i].type = k;
    ts_sizes[i].size = size;
}

/* Does the status's count field hold what MPI_Get_elements_x answers, cancelled or not, for
 * counts on both sides of 2^31 and 2^32? */
static int status_field_holds_bytes(void)
{
    static const MPI_Count counts[] = {0, 1, 13, 2147483647, 2147483653ll, 8589934597ll};
    for (int cancelled = 0; cancelled < 2; cancelled++)
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            MPI_Status st;
            MPI_Count n = -1;
            memset(&st, 0, sizeof st);
            if (own_Status_set_cancelled(&st, cancelled) != MPI_SUCCESS ||
                own_Status_set_elements_x(&st, MPI_BYTE, counts[i]) != MPI_SUCCESS ||
                own_Get_elements_x(&st, MPI_BYTE, &n) != MPI_SUCCESS || n != counts[i] ||
                ts_status_field(&st) != n)
                return 0;
        }
    return 1;
}

int ts_fill(void)
{
    int state = TS_UNKNOWN;
    if (!atomic_compare_exchange_strong(&ts_state, &state, TS_FILLING)) {
        if (state != TS_READY || pthread_mutex_trylock(&filling))
            return 0; /* another thread is filling: ask the library meanwhile */
        pthread_mutex_unlock(&filling); /* after the filler's unlock: the table is seen */
        return ts_seen = 1;
    }
    _Static_assert(sizeof predefined / sizeof predefined[0] <= TS_SLOTS / 2,
                   "the table stays at most half full");
    pthread_mutex_lock(&filling);
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++)
        add(predefined[i]);
    ts_raw_status = status_field_holds_bytes();
    atomic_store_explicit(&ts_state, TS_READY, memory_order_release);
    pthread_mutex_unlock(&filling);
    return ts_seen = 1;
}
