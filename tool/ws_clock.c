/* Clock synchronisation for wait states: each rank's offset against rank 0, from min-RTT
 * ping-pongs with its parent in a binomial tree (log2 P rounds, no O(P) work anywhere); the
 * parent answers with its own corrected time, so offsets compose down the tree. Measured at
 * init (used online) and at finalize (drift reported). */
#include "ws.h"

#include <float.h>
#include <math.h>

#include "clock.h"
#include "own.h"

#define PINGS_MIN 10
#define PINGS_MAX 1000
#define PING_BUDGET 0.2  /* seconds per parent-child pair beyond PINGS_MIN ... */
#define PING_GOOD 20e-6  /* ... unless no round trip was this short yet: then up to */
#define PING_LIMIT 1.0   /* this long (a loaded or oversubscribed node) */
#define TAG_PING 7401

double ws_shift;
static double off0, t0_raw, off1, t1_raw;
static double rtt0 = 0;    /* best round trip at init: the offset is known to +- rtt0/2 */
static int synced;

double ws_corr(double raw)
{
    return raw + ws_shift + off0;
}

static double now_ref(double off)
{
    return clk_now() + ws_shift + off;
}

/* Offset of this rank against rank 0 of comm. */
static double measure(MPI_Comm comm, double *rtt)
{
    int rank, size, top = 1;
    own_Comm_rank(comm, &rank);
    own_Comm_size(comm, &size);
    while (top < size)
        top <<= 1;
    double off = 0;
    for (int step = top >> 1; step >= 1; step >>= 1) {
        if (rank % (2 * step) == 0 && rank + step < size) {
            for (;;) { /* answer pings until the child says stop (NaN) */
                double t;
                own_Recv(&t, 1, MPI_DOUBLE, rank + step, TAG_PING, comm, MPI_STATUS_IGNORE);
                if (isnan(t))
                    break;
                t = now_ref(off);
                own_Send(&t, 1, MPI_DOUBLE, rank + step, TAG_PING, comm);
            }
        } else if (rank % (2 * step) == step) {
            double best = DBL_MAX, start = clk_now();
            for (int i = 0; i < PINGS_MAX; i++) {
                double spent = clk_now() - start;
                if (i >= PINGS_MIN && spent > PING_BUDGET && (best <= PING_GOOD ||
                                                              spent > PING_LIMIT))
                    break;
                double a = clk_now() + ws_shift, tp;
                own_Send(&a, 1, MPI_DOUBLE, rank - step, TAG_PING, comm);
                own_Recv(&tp, 1, MPI_DOUBLE, rank - step, TAG_PING, comm, MPI_STATUS_IGNORE);
                double b = clk_now() + ws_shift;
                if (b - a < best) {
                    best = b - a;
                    off = tp - (a + b) / 2;
                }
                *rtt = best;
            }
            double stop = NAN;
            own_Send(&stop, 1, MPI_DOUBLE, rank - step, TAG_PING, comm);
        }
    }
    return off;
}

int ws_clock_sync(MPI_Comm comm, int final)
{
    double rtt = 0, off = measure(comm, &rtt);
    if (!final) {
        rtt0 = rtt;
        off0 = off;
        t0_raw = clk_now() + ws_shift;
        synced = 1;
    } else {
        off1 = off;
        t1_raw = clk_now() + ws_shift;
    }
    return 0;
}

/* Offset at init, its uncertainty (half the best round trip to the parent) and the drift
 * (seconds per second) between init and finalize. */
void ws_clock_report(double *offset, double *uncertainty, double *drift)
{
    *uncertainty = rtt0 / 2;
    *offset = off0;
    *drift = synced && t1_raw > t0_raw ? (off1 - off0) / (t1_raw - t0_raw) : 0;
}
