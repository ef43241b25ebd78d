/* Clock synchronisation for wait states: each rank's offset against rank 0 from min-RTT
 * ping-pongs up a binomial tree (log2 P rounds, nothing O(P)); parents answer with their
 * corrected time, so offsets compose. Waiting ranks poll and yield (ranks sharing a core answer
 * in microseconds, not a time slice). At init, at finalize, and with TARDY_WAITS_RESYNC_MS about
 * every period right after a blocking collective on an intra-communicator of every world rank
 * (the n-th one on it is the same call on every rank), where the ranks agree by a MAX reduction
 * whether to measure; between measurements the offset follows a line fitted to them. */
#include "ws.h"
#include "waits.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>

#include "tool/base/base.h"
#include "mpit/own/own.h"

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
/* The pings go on tardy's own communicator of every world rank (at init, at finalize, and
 * from a collective of a communicator of every world rank: never the shadows, whose point-to-
 * point traffic has the application's tags); MPI_COMM_NULL outside init to finalize. */
static MPI_Comm sync_comm = MPI_COMM_NULL;
static pthread_mutex_t resync_lock = PTHREAD_MUTEX_INITIALIZER;   /* one thread measures */
static _Atomic double t_last;   /* local time of the last measurement */
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
 * *t_best (the best ping's); a parent answers its children with its corrected time, moving its
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
    atomic_store_explicit(&t_last, t, memory_order_relaxed);
}

void ws_clock_period(double seconds)
{
    period = seconds > 0 ? seconds : 0;
}

void ws_clock_comm(struct ws_comm *sc)
{
    sc->n = 0;
    sc->next = 1;
    sc->t_look = local(clk_now());
}

int ws_clock_sync(MPI_Comm comm, int final)
{
    double rtt = 0, t = local(clk_now()), off = measure(comm, &rtt, &t, 0);
    if (!final) {
        rtt0 = rtt;
        off0 = off;
        t0_raw = t;
        set_model(off, t, rtt);
        synced = 1;
        sync_comm = comm;
    } else {
        off1 = off;
        t1_raw = t;
        sync_comm = MPI_COMM_NULL;
    }
    return 0;
}

int ws_clock_tick(struct ev_call *c, int rc)
{
    if (!period || rc != MPI_SUCCESS || sync_comm == MPI_COMM_NULL)
        return 0;
    struct ws_comm *sc = ws_comm_find(c->comm);
    if (!sc || !sc->world || ++sc->n < sc->next)
        return 0;
    /* Every world rank is at this collective of sc: agree on the time since the last
     * measurement (on any communicator) and since the last look here, and from them whether
     * to measure now and when to look again (about when the period will be over). */
    double now = local(clk_now()), most[2] = {0, 0};
    double mine[2] = {now - atomic_load_explicit(&t_last, memory_order_relaxed),
                      now - sc->t_look};
    own_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, sc->shadow);
    double left = period - most[0], per_s = (double)sc->n / (most[1] > 1e-6 ? most[1] : 1e-6);
    if (left <= 0) {
        /* One thread measures: when another thread of some rank is measuring now (at a
         * collective of another communicator), nobody measures here; look again next time.
         * A measurement holds the lock on every rank from before this agreement to its end,
         * so measurements on sync_comm come in the same order on every rank. */
        int busy = pthread_mutex_trylock(&resync_lock) != 0, any = 0;
        own_Allreduce(&busy, &any, 1, MPI_INT, MPI_MAX, sc->shadow);
        if (!any) {
            double rtt = 0, t = local(clk_now());
            double off = measure(sync_comm, &rtt, &t, 1);
            set_model(off, t, rtt);
            /* the tree's ranks finish at different times: leave together, as they came */
            own_Barrier(sync_comm);
            resyncs++;
            left = period;
        }
        if (!busy)
            pthread_mutex_unlock(&resync_lock);
    }
    /* the gap between looks at most doubles: a rate seen over few collectives is rough */
    double ahead = ceil(per_s * left), most_gap = 2.0 * (double)sc->next;
    sc->next = ahead < 1 ? 1 : ahead > most_gap ? (unsigned long)most_gap : (unsigned long)ahead;
    sc->n = 0;
    sc->t_look = local(clk_now());
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
