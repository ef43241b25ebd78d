/* Clock synchronisation for wait states: each rank's offset against rank 0, from min-RTT
 * ping-pongs with its parent in a binomial tree (log2 P rounds, no O(P) work anywhere); the
 * parent answers with its own corrected time, so offsets compose down the tree. A rank
 * waiting for a ping or an answer polls and, after a few microseconds, gives its core away
 * between polls: ranks sharing a core (an oversubscribed or loaded node) then answer in
 * microseconds, not a scheduler time slice, and a short round trip is found. Measured at
 * init and at finalize (drift reported), and with TARDY_WAITS_RESYNC_MS again about every
 * period: the measurement needs every rank, so it happens where every rank is anyway, right
 * after a blocking collective on MPI_COMM_WORLD (the n-th one is the same call on every
 * rank); the ranks agree when, from a MAX reduction of their time since the last one, every
 * so many such collectives. Between measurements the offset follows a line fitted to them. */
#include "ws.h"
#include "waits.h"

#include <float.h>
#include <math.h>
#include <sched.h>

#include "clock.h"
#include "own.h"

#define PINGS_MIN 10
#define PINGS_MAX 1000
#define PING_BUDGET 0.2  /* seconds per parent-child pair beyond PINGS_MIN ... */
#define PING_GOOD 20e-6  /* ... unless no round trip was this short yet: then up to */
#define PING_LIMIT 1.0   /* this long (a loaded or oversubscribed node) */
#define RESYNC_LIMIT 0.1 /* a periodic one: PINGS_MIN, more only until one is as good as
                            at init (4 x) or this long */
#define RATE_MAX 0.05    /* a larger measured drift is taken for measurement error */
#define TAG_PING 7401
#define SPIN 5e-6        /* seconds a rank waiting for a ping polls before it yields */

double ws_shift;
static double test_rate, test_t0;   /* test-only drift of this rank's raw clock */

/* The correction: reference = t + off + rate * (t - t_sync), t the local (test-shifted)
 * clock. Two copies: a resync writes the one not in use, then switches (readers on other
 * threads never see a half-written one). */
struct model {
    double off, rate, t_sync;
};
static struct model model[2];
static atomic_uint cur;

static double off0, t0_raw, off1, t1_raw;
static double rtt0 = 0;    /* best round trip at init: the offset is known to +- rtt0/2 */
static int synced;

/* periodic resynchronisation (all decisions from values every rank shares) */
static double period;      /* seconds, 0: off */
static MPI_Comm sync_comm = MPI_COMM_NULL;
static unsigned long n_coll, next_check, gap;
static double t_last;      /* local time of the last measurement */
static unsigned resyncs;

static double local(double raw)
{
    return raw + ws_shift + test_rate * (raw - test_t0);
}

double ws_corr(double raw)
{
    const struct model *m = &model[atomic_load_explicit(&cur, memory_order_acquire) & 1];
    double t = local(raw);
    return t + m->off + m->rate * (t - m->t_sync);
}

void ws_clock_test(double shift, double rate)
{
    ws_shift = shift;
    test_rate = rate;
    test_t0 = clk_now();
}

/* Receive one double from peer on comm: poll, yielding after SPIN seconds. */
static void recv_ping(double *x, int peer, MPI_Comm comm)
{
    MPI_Request r;
    int done = 0;
    double t0 = clk_now();
    own_Irecv(x, 1, MPI_DOUBLE, peer, TAG_PING, comm, &r);
    while (own_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        if (clk_now() - t0 > SPIN)
            sched_yield();
}

/* Offset of this rank against rank 0 of comm (quick: a periodic one), valid at local time
 *t_best (the best ping's); a parent answers its children with its corrected time, moving its
 * new offset on at the rate of the model in use until then. */
static double measure(MPI_Comm comm, double *rtt, double *t_best, int quick)
{
    const struct model *m = &model[atomic_load_explicit(&cur, memory_order_acquire) & 1];
    int rank, size, top = 1;
    own_Comm_rank(comm, &rank);
    own_Comm_size(comm, &size);
    while (top < size)
        top <<= 1;
    double off = 0, budget = quick ? 0 : PING_BUDGET, limit = quick ? RESYNC_LIMIT : PING_LIMIT;
    double good = quick && 4 * rtt0 > PING_GOOD ? 4 * rtt0 : PING_GOOD;
    for (int step = top >> 1; step >= 1; step >>= 1) {
        if (rank % (2 * step) == 0 && rank + step < size) {
            for (;;) { /* answer pings until the child says stop (NaN) */
                double t;
                recv_ping(&t, rank + step, comm);
                if (isnan(t))
                    break;
                t = local(clk_now());
                t += off + (rank ? m->rate * (t - *t_best) : 0);
                own_Send(&t, 1, MPI_DOUBLE, rank + step, TAG_PING, comm);
            }
        } else if (rank % (2 * step) == step) {
            double best = DBL_MAX, start = clk_now();
            for (int i = 0; i < PINGS_MAX; i++) {
                double spent = clk_now() - start;
                if (i >= PINGS_MIN && spent > budget && (best <= good || spent > limit))
                    break;
                double a = local(clk_now()), tp;
                own_Send(&a, 1, MPI_DOUBLE, rank - step, TAG_PING, comm);
                recv_ping(&tp, rank - step, comm);
                double b = local(clk_now());
                if (b - a < best) {
                    best = b - a;
                    off = tp - (a + b) / 2;
                    *t_best = (a + b) / 2;
                }
                *rtt = best;
            }
            double stop = NAN;
            own_Send(&stop, 1, MPI_DOUBLE, rank - step, TAG_PING, comm);
        }
    }
    return off;
}

/* Weighted least squares of offset over local time through every measurement (weight
 * 1/rtt^2: the offset is known to +-rtt/2), older ones fading by FORGET at each new one;
 * running sums, so O(1) memory. Time is counted from the first measurement. */
#define FORGET 0.9
static double s_w, s_t, s_o, s_tt, s_to, t_first;

/* A new measurement: offset off at local time t, best round trip rtt. */
static void set_model(double off, double t, double rtt)
{
    unsigned next = (atomic_load_explicit(&cur, memory_order_relaxed) + 1) & 1;
    double w = 1 / (rtt > 1e-7 ? rtt * rtt : 1e-14), tau, det, rate = 0, at = off;
    if (!synced)
        t_first = t;
    tau = t - t_first;
    s_w = FORGET * s_w + w;
    s_t = FORGET * s_t + w * tau;
    s_o = FORGET * s_o + w * off;
    s_tt = FORGET * s_tt + w * tau * tau;
    s_to = FORGET * s_to + w * tau * off;
    det = s_w * s_tt - s_t * s_t;
    if (synced && det > 0) {
        rate = (s_w * s_to - s_t * s_o) / det;
        at = (s_o - rate * s_t) / s_w + rate * tau;
        if (!(fabs(rate) <= RATE_MAX)) { /* not a clock's drift: take the measurement */
            rate = 0;
            at = off;
        }
    }
    model[next] = (struct model){at, rate, t};
    atomic_store_explicit(&cur, next, memory_order_release);
    t_last = t;
}

void ws_clock_period(double seconds)
{
    period = seconds > 0 ? seconds : 0;
    n_coll = 0;
    next_check = gap = 1;
}

int ws_clock_sync(MPI_Comm comm, int final)
{
    double rtt = 0, t = local(clk_now()), off = measure(comm, &rtt, &t, 0);
    if (!final) {
        rtt0 = rtt;
        off0 = off;
        t0_raw = t;
        sync_comm = comm;
        set_model(off, t, rtt);
        synced = 1;
    } else {
        off1 = off;
        t1_raw = t;
        sync_comm = MPI_COMM_NULL;
    }
    return 0;
}

int ws_clock_tick(struct ev_call *c, int rc)
{
    if (!period || rc != MPI_SUCCESS || c->comm != MPI_COMM_WORLD || sync_comm == MPI_COMM_NULL)
        return 0;
    if (++n_coll < next_check)
        return 0;
    /* Every rank is at this collective of MPI_COMM_WORLD: agree on the time since the last
     * measurement, and from it, when to look again (about when the period will be over). */
    double mine = local(clk_now()) - t_last, most = 0;
    own_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, sync_comm);
    double left = period - most, per_s = (double)n_coll / (most > 1e-6 ? most : 1e-6);
    if (left <= 0) {
        double rtt = 0, t = local(clk_now()), off = measure(sync_comm, &rtt, &t, 1);
        set_model(off, t, rtt);
        /* the tree's ranks finish at different times: leave together, as they came */
        own_Barrier(sync_comm);
        resyncs++;
        n_coll = 0;
        left = period;
    }
    /* the gap between looks at most doubles: a rate seen over few collectives is rough */
    double ahead = ceil(per_s * left), most_gap = 2.0 * (double)gap;
    gap = ahead < 1 ? 1 : ahead > most_gap ? (unsigned long)most_gap : (unsigned long)ahead;
    next_check = n_coll + gap;
    if (c->th)
        c->t_leave = clk_now(); /* part of the call, not compute */
    return 1;
}

/* Offset at init, its uncertainty (half the best round trip to the parent), the drift
 * (seconds per second) between init and finalize, and the periodic measurements made. */
void ws_clock_report(double *offset, double *uncertainty, double *drift, double *n_resync)
{
    *uncertainty = rtt0 / 2;
    *offset = off0;
    *drift = synced && t1_raw > t0_raw ? (off1 - off0) / (t1_raw - t0_raw) : 0;
    *n_resync = resyncs;
}
