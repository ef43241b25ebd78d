/* Clock synchronisation for wait states: each rank's offset against rank 0 from min-RTT
 * ping-pongs up a binomial tree (log2 P rounds, nothing O(P)); parents answer with their
 * corrected time, so offsets compose. Waiting ranks poll and yield (ranks sharing a core answer
 * in microseconds, not a time slice). At init, at finalize, and with TARDY_WAITS_RESYNC_MS about
 * every period right after a blocking collective on an intra-communicator of every world rank
 * (the n-th one on it is the same call on every rank), where the ranks agree by a MAX reduction
 * whether to measure; between measurements the offset follows a line fitted to them.
 * Ranks of one host read one CLOCK_MONOTONIC: only one rank of each such clock domain (its
 * leader) takes part in the ping-pongs and hands its model to the others, so that a job on one
 * host measures nothing (its offsets are exactly 0) and one on many hosts pings over log2 of
 * the hosts, not of the ranks. */
#include "ws_data.h"
#include "waits.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "tool/base/base.h"
#include "mpit/own/own.h"

#define PINGS_MIN 10
#define PINGS_MAX 1000
#define PING_BUDGET 0.2  /* seconds per parent-child pair beyond PINGS_MIN ... */
#define PING_GOOD 20e-6  /* ... unless no round trip was this short yet: then up to */
#define PING_LIMIT 1.0   /* this long (a loaded or oversubscribed node) */
#define RESYNC_LIMIT 0.1 /* a periodic one: PINGS_MIN, more only until one is as good as
                            at init (4 x) or this long */
#define TAG_PING 7401
#define SPIN 5e-6        /* seconds a rank waiting for a ping polls before it yields */

struct ws_clock ws_clock;

/* This rank's clock beyond ws_clock: the measurements at init and finalize, and the periodic
 * resynchronisation (all its decisions from values every rank shares). */
static struct {
    struct clock_fit fit;
    double off0, t0_raw, off1, t1_raw;
    double rtt0;             /* best round trip at init: the offset is known to +- rtt0/2 */
    int synced;
    double period;           /* seconds, 0: off */
    /* The pings go on tardy's own communicator of every world rank (at init, at finalize,
     * and from a collective of a communicator of every world rank: never the shadows, whose
     * point-to-point traffic has the application's tags); MPI_COMM_NULL outside init to
     * finalize. */
    MPI_Comm sync_comm;
    /* Clock domains (domains()): dom_comm the ranks sharing this rank's clock, its rank 0
     * the leader; meas_comm the leaders, world rank 0 first (MPI_COMM_NULL elsewhere). */
    MPI_Comm dom_comm, meas_comm;
    int one;                 /* every rank reads one clock: nothing to measure */
    pthread_mutex_t resync_lock;   /* one thread measures */
    _Atomic double t_last;   /* local time of the last measurement */
    unsigned resyncs;
} clk = {.sync_comm = MPI_COMM_NULL, .dom_comm = MPI_COMM_NULL, .meas_comm = MPI_COMM_NULL,
       .resync_lock = PTHREAD_MUTEX_INITIALIZER};

int ws_resync;

void ws_clock_test(double shift, double rate)
{
    ws_clock.shift = shift;
    ws_clock.test_rate = rate;
    ws_clock.test_t0 = clk_now();
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
    const struct clock_model *m =
        &ws_clock.model[atomic_load_explicit(&ws_clock.cur, memory_order_acquire) & 1];
    int rank, size, top = 1;
    own_Comm_rank(comm, &rank);
    own_Comm_size(comm, &size);
    while (top < size)
        top <<= 1;
    double off = 0, budget = quick ? 0 : PING_BUDGET, limit = quick ? RESYNC_LIMIT : PING_LIMIT;
    double good = quick && 4 * clk.rtt0 > PING_GOOD ? 4 * clk.rtt0 : PING_GOOD;
    for (int step = top >> 1; step >= 1; step >>= 1) {
        if (rank % (2 * step) == 0 && rank + step < size) {
            for (;;) { /* answer pings until the child says stop (NaN) */
                double t;
                recv_ping(&t, rank + step, comm);
                if (isnan(t))
                    break;
                t = ws_clock_local(clk_now());
                t += off + (rank ? m->rate * (t - *t_best) : 0);
                own_Send(&t, 1, MPI_DOUBLE, rank + step, TAG_PING, comm);
            }
        } else if (rank % (2 * step) == step) {
            double best = DBL_MAX, start = clk_now();
            for (int i = 0; i < PINGS_MAX; i++) {
                double spent = clk_now() - start;
                if (i >= PINGS_MIN && spent > budget && (best <= good || spent > limit))
                    break;
                double a = ws_clock_local(clk_now()), tp;
                own_Send(&a, 1, MPI_DOUBLE, rank - step, TAG_PING, comm);
                recv_ping(&tp, rank - step, comm);
                double b = ws_clock_local(clk_now());
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

/* The identity of the clock this rank reads: CLOCK_MONOTONIC is one per booted Linux kernel
 * (its boot_id), moved only by a time namespace (its offsets), so two ranks with the same key
 * read the same clock. 0: unknown (not Linux), or a test shift: a domain of its own. */
static uint64_t clock_key(void)
{
    if (ws_clock.shift != 0 || ws_clock.test_rate != 0)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over both files' bytes */
    long boot_bytes = 0;
    const char *files[] = {"/proc/sys/kernel/random/boot_id", "/proc/self/timens_offsets"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f)
            continue;  /* no time namespaces: the clock is the kernel's */
        for (int ch; (ch = getc(f)) != EOF; boot_bytes += i == 0) {
            h ^= (unsigned char)ch;
            h *= 0x100000001b3ull;
        }
        fclose(f);
    }
    return boot_bytes && h ? h : 0;
}

/* Did every rank bring this key, none 0? most: the MAX reduction of {key, ~key} over them
 * (equal maxima of a value and of its complement: all values equal). */
static int same_key(uint64_t key, const uint64_t most[2])
{
    return key && most[0] == key && most[1] == ~key;
}

/* Do all ranks of comm have the same key, none 0? Collective over comm. */
static int one_clock(MPI_Comm comm, uint64_t key)
{
    uint64_t in[2] = {key, ~key}, most[2] = {0, 0};
    yw_allreduce(in, most, 2, MPI_UINT64_T, MPI_MAX, comm);
    return same_key(key, most);
}

/* Split comm, whose ranks do not all read one clock, into clock domains: the ranks that bring
 * one clock key (one booted kernel and time namespace, so one host) form one, a rank without
 * a key one of its own; the leaders (rank 0 of each, comm's rank 0 among them) measure. The
 * colour is the key folded to 31 bits (a keyless rank's its rank); should two keys fold alike,
 * or a rank's colour meet a key's, the ranks of that split see it in one reduction and split
 * further, one domain each. No MPI_Comm_split_type (MPICH's took 0.5 s at 8 ranks on 2
 * cores). Collective over comm. */
static void domains(MPI_Comm comm, uint64_t key)
{
    int rank = 0, lead = 0;
    own_Comm_rank(comm, &rank);
    int colour = key ? (int)((key ^ key >> 31 ^ key >> 62) & 0x7fffffff) : rank;
    MPI_Comm split = MPI_COMM_NULL;
    own_Comm_split(comm, colour, rank, &split);
    if (one_clock(split, key)) {
        clk.dom_comm = split;
    } else {
        own_Comm_rank(split, &lead);
        own_Comm_split(split, lead, 0, &clk.dom_comm);
        own_Comm_free(&split);
    }
    own_Comm_rank(clk.dom_comm, &lead);
    own_Comm_split(comm, lead == 0 ? 0 : MPI_UNDEFINED, rank, &clk.meas_comm);
}

/* Measure the offsets against comm's rank 0 among the leaders; every rank gets its leader's
 * result (offset, local time it is valid at, best round trip). */
static double measure_domains(double *rtt, double *t_best, int quick)
{
    double r[3] = {0, *t_best, 0};
    if (clk.one) { /* the reference clock itself */
        *rtt = 0;
        return 0;
    }
    if (clk.meas_comm != MPI_COMM_NULL) {
        r[2] = *rtt;
        r[0] = measure(clk.meas_comm, &r[2], &r[1], quick);
    }
    yw_bcast(r, 3, MPI_DOUBLE, 0, clk.dom_comm);
    *t_best = r[1];
    *rtt = r[2];
    return r[0];
}

static void free_domains(void)
{
    clk.one = 0;
    if (clk.meas_comm != MPI_COMM_NULL)
        own_Comm_free(&clk.meas_comm);
    if (clk.dom_comm != MPI_COMM_NULL)
        own_Comm_free(&clk.dom_comm);
}

/* A new measurement: offset off at local time t, best round trip rtt. */
static void set_model(double off, double t, double rtt)
{
    unsigned next = (atomic_load_explicit(&ws_clock.cur, memory_order_relaxed) + 1) & 1;
    ws_clock.model[next] = clock_fit_add(&clk.fit, off, t, rtt);
    atomic_store_explicit(&ws_clock.cur, next, memory_order_release);
    atomic_store_explicit(&clk.t_last, t, memory_order_relaxed);
}

void ws_clock_period(double seconds)
{
    clk.period = seconds > 0 ? seconds : 0;
    ws_resync = clk.period && clk.sync_comm != MPI_COMM_NULL;
}

void ws_clock_comm(struct ws_comm *sc)
{
    sc->n = 0;
    sc->next = 1;
    sc->t_look = ws_clock_local(clk_now());
}

int ws_clock_start(MPI_Comm comm, int want, int *multiple)
{
    /* One reduction: whether every rank wants wait states, whether any runs threads at
     * MPI_THREAD_MULTIPLE, whether all read one clock, and the latest of their clocks, read
     * before it (so earlier than any rank's reading after it: on one clock, a base no later
     * call comes before). */
    uint64_t key = clock_key(), in[4] = {(uint64_t)!want | (uint64_t)(*multiple != 0) << 1, key,
                                         ~key, (uint64_t)llrint(clk_now() * 1e9)};
    uint64_t most[4] = {0, 0, 0, 0};
    yw_allreduce(in, most, 4, MPI_UINT64_T, MPI_MAX, comm);
    *multiple = (int)(most[0] >> 1 & 1);
    if (most[0] & 1)
        return 0;
    clk.one = same_key(key, most + 1);
    if (!clk.one)
        domains(comm, key);
    double rtt = 0, t = ws_clock_local(clk_now()), off = measure_domains(&rtt, &t, 0);
    clk.rtt0 = rtt;
    clk.off0 = off;
    clk.t0_raw = t;
    set_model(off, t, rtt);
    clk.synced = 1;
    clk.sync_comm = comm;
    ws_resync = clk.period > 0;
    if (clk.one) { /* the reference clock is every rank's own */
        ws_base = (double)most[3] * 1e-9;
    } else {
        ws_base = ws_corr(clk_now());
        yw_bcast(&ws_base, 1, MPI_DOUBLE, 0, comm);
    }
    return 1;
}

void ws_clock_end(void)
{
    double rtt = 0, t = ws_clock_local(clk_now()), off = measure_domains(&rtt, &t, 0);
    clk.off1 = off;
    clk.t1_raw = t;
    clk.sync_comm = MPI_COMM_NULL;
    ws_resync = 0;
    free_domains();
}

int ws_clock_look(struct ws_comm *sc)
{
    if (!sc->world || ++sc->n < sc->next)
        return 0;
    /* Every world rank is at this collective of sc: agree on the time since the last
     * measurement (on any communicator) and since the last look here, and from them whether
     * to measure now and when to look again (about when the period will be over). */
    double now = ws_clock_local(clk_now()), most[2] = {0, 0};
    double mine[2] = {now - atomic_load_explicit(&clk.t_last, memory_order_relaxed),
                      now - sc->t_look};
    own_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, sc->shadow);
    double left = clk.period - most[0];
    double per_s = (double)sc->n / (most[1] > 1e-6 ? most[1] : 1e-6);
    if (left <= 0) {
        /* One thread measures: when another thread of some rank is measuring now (at a
         * collective of another communicator), nobody measures here; look again next time.
         * A measurement holds the lock on every rank from before this agreement to its end,
         * so measurements on the sync communicator come in the same order on every rank. */
        int busy = pthread_mutex_trylock(&clk.resync_lock) != 0, any = 0;
        own_Allreduce(&busy, &any, 1, MPI_INT, MPI_MAX, sc->shadow);
        if (!any) {
            double rtt = 0, t = ws_clock_local(clk_now());
            double off = measure_domains(&rtt, &t, 1);
            set_model(off, t, rtt);
            /* the tree's ranks finish at different times: leave together, as they came */
            own_Barrier(clk.sync_comm);
            clk.resyncs++;
            left = clk.period;
        }
        if (!busy)
            pthread_mutex_unlock(&clk.resync_lock);
    }
    /* the gap between looks at most doubles: a rate seen over few collectives is rough */
    double ahead = ceil(per_s * left), most_gap = 2.0 * (double)sc->next;
    sc->next = ahead < 1 ? 1 : ahead > most_gap ? (unsigned long)most_gap : (unsigned long)ahead;
    sc->n = 0;
    sc->t_look = ws_clock_local(clk_now());
    return 1;
}

/* Offset at init, its uncertainty (half the best round trip to the parent), the drift
 * (seconds per second) between init and finalize, and the periodic measurements made. */
void ws_clock_report(double *offset, double *uncertainty, double *drift, double *n_resync)
{
    *uncertainty = clk.rtt0 / 2;
    *offset = clk.off0;
    *drift = clk.synced && clk.t1_raw > clk.t0_raw
                 ? (clk.off1 - clk.off0) / (clk.t1_raw - clk.t0_raw) : 0;
    *n_resync = clk.resyncs;
}
