/* The clock behind clk_now (base.h). On x86-64, when the TSC is invariant and the kernel's
 * clocksource (so the kernel found it synchronised across CPUs), clk_now reads the TSC and
 * converts it with a line fitted to CLOCK_MONOTONIC (each thread reads its copy, clk_thread):
 *   - calibration: the first reading takes a (TSC, CLOCK_MONOTONIC) pair; readings return
 *     CLOCK_MONOTONIC until one comes CAL_MIN later, whose pair gives the first rate;
 *   - re-anchoring: a conversion serves a span of ticks (CAL_MIN doubling up to PERIOD_MAX);
 *     the reading past it measures a new pair, fits the rate over the last PAIRS pairs
 *     (seconds of them: reading noise over a long baseline) and starts a new line where the
 *     old one is at that tick, so the clock stays continuous and monotonic, with the rate
 *     nudged (SLEW_MAX at most) so the line meets CLOCK_MONOTONIC at the end of its span;
 *   - a TSC that went backwards or drifted DRIFT_MAX from CLOCK_MONOTONIC (a suspended or
 *     migrated virtual machine) is given up, with a warning, for CLOCK_MONOTONIC.
 * Whoever reads past the span re-anchors; one thread does (a try-lock), the others extend the
 * line meanwhile. Elsewhere clk_now is CLOCK_MONOTONIC. */
#include "base.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define CAL_MIN 2e-3    /* seconds of calibration before the TSC is read, the first span */
#define PERIOD_MAX 1.0  /* seconds a line serves at most */
#define PAIRS 16        /* pairs the rate is fitted over */
#define SLEW_MAX 1e-4   /* relative change of the rate that closes the gap to the kernel */
#define DRIFT_MAX 1e-3  /* seconds from CLOCK_MONOTONIC: the TSC is given up */
#define TRIES 8         /* readings per pair, the narrowest kept */

_Thread_local struct clk_line clk_thread;

/* The current line, for clk_slow. Two copies under a sequence count (a latch): the writer
 * rewrites the copy readers are not sent to, so a reader never waits, and retries only when
 * the count moved while it read. */
static struct {
    atomic_uint seq;
    struct {
        _Atomic uint64_t at, span;
        _Atomic double sec, per_tick;
    } copy[2];
} latch;

enum { UNDECIDED, CALIBRATING, TSC, KERNEL, GAVE_UP };

/* A CLOCK_MONOTONIC reading m and the tick t midway through it; w ticks between the TSC
 * readings around it (its uncertainty). */
struct pair {
    uint64_t t, w;
    double m;
};

static struct {
    pthread_mutex_t lock; /* the writer of what follows and of latch */
    atomic_int mode;
    uint64_t narrow;      /* the width a pair is judged against: the narrowest lately */
    struct pair first;    /* calibration's first pair */
    struct pair pair[PAIRS];
    unsigned npairs;
    atomic_int gave_up;
} clk = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* rdtsc kept in program order with the clock_gettime between two of them. */
static uint64_t tsc_fenced(void)
{
    __builtin_ia32_lfence();
    uint64_t t = __builtin_ia32_rdtsc();
    __builtin_ia32_lfence();
    return t;
}

/* The TSC ticks at one rate in every power state (CPUID 0x80000007 EDX bit 8) and the kernel
 * keeps time with it (it checks that the CPUs' TSCs agree before it does). */
static int tsc_usable(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
        return 0;
    char buf[16] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n == 4 && !memcmp(buf, "tsc\n", 4);
}

/* Measure a pair, the narrowest of TRIES. Returns whether it is narrow: within twice the
 * narrowest lately (a reading the thread was preempted or interrupted in is off by as much as
 * it is wide). The mark creeps up after wide ones, so a slower machine (valgrind) still
 * gets its pairs. */
static int measure(struct pair *p)
{
    p->w = UINT64_MAX;
    for (int i = 0; i < TRIES && (i == 0 || p->w > clk.narrow); i++) {
        uint64_t t1 = tsc_fenced();
        double m = clk_kernel();
        uint64_t t2 = tsc_fenced();
        if (t2 - t1 < p->w)
            *p = (struct pair){.t = t1 + (t2 - t1) / 2, .w = t2 - t1, .m = m};
    }
    if (p->w < clk.narrow)
        clk.narrow = p->w;
    else
        clk.narrow += (p->w - clk.narrow) / 8 + 1;
    return p->w <= 2 * clk.narrow;
}

/* Publish line l: the copy readers are not sent to is written first, then the other. */
static void publish(const struct clk_line *l)
{
    unsigned seq = atomic_load_explicit(&latch.seq, memory_order_relaxed);
    for (unsigned k = 0; k < 2; k++) {
        atomic_store_explicit(&latch.seq, seq + 1 + k, memory_order_release);
        atomic_thread_fence(memory_order_release);
        __typeof__(latch.copy[0]) *c = &latch.copy[k];
        atomic_store_explicit(&c->at, l->at, memory_order_relaxed);
        atomic_store_explicit(&c->span, l->span, memory_order_relaxed);
        atomic_store_explicit(&c->sec, l->sec, memory_order_relaxed);
        atomic_store_explicit(&c->per_tick, l->per_tick, memory_order_relaxed);
    }
}

static struct clk_line current(void)
{
    for (;;) {
        unsigned seq = atomic_load_explicit(&latch.seq, memory_order_acquire);
        const __typeof__(latch.copy[0]) *c = &latch.copy[seq & 1];
        struct clk_line l = {atomic_load_explicit(&c->at, memory_order_relaxed),
                         atomic_load_explicit(&c->span, memory_order_relaxed),
                         atomic_load_explicit(&c->sec, memory_order_relaxed),
                         atomic_load_explicit(&c->per_tick, memory_order_relaxed)};
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&latch.seq, memory_order_relaxed) == seq)
            return l;
    }
}

/* Line l at tick tsc; a tick before its start: its start. */
static double on(const struct clk_line *l, uint64_t tsc)
{
    return l->sec + (tsc > l->at ? (double)(tsc - l->at) * l->per_tick : 0.0);
}

static int within(const struct clk_line *l, uint64_t tsc)
{
    return tsc >= l->at && tsc - l->at < l->span;
}

/* Record pair p; returns the rate over the pairs kept (seconds per tick). */
static double fit_rate(const struct pair *p)
{
    const struct pair *oldest = &clk.pair[clk.npairs < PAIRS ? 0 : clk.npairs % PAIRS];
    double rate = (p->m - oldest->m) / (double)(p->t - oldest->t);
    clk.pair[clk.npairs++ % PAIRS] = *p;
    return rate;
}

static double give_up(double off)
{
    atomic_store_explicit(&clk.mode, GAVE_UP, memory_order_relaxed);
    publish(&(struct clk_line){0, 0, 0, 0});
    tardy_warn_once(&clk.gave_up, "the TSC went %.3g s away from CLOCK_MONOTONIC (a suspended "
                    "or migrated machine?): timestamps from CLOCK_MONOTONIC from now on", off);
    return clk_kernel();
}

/* The first reading (lock held): decide, and take calibration's first pair. */
static double start(void)
{
    if (!tsc_usable()) {
        atomic_store_explicit(&clk.mode, KERNEL, memory_order_relaxed);
        return clk_kernel();
    }
    clk.narrow = UINT64_MAX;
    measure(&clk.first);
    atomic_store_explicit(&clk.mode, CALIBRATING, memory_order_relaxed);
    return clk.first.m;
}

/* A reading while calibrating (lock held). */
static double calibrate(void)
{
    double m = clk_kernel();
    if (m - clk.first.m < CAL_MIN)
        return m;
    struct pair p;
    if (!measure(&p))
        return p.m;
    if (clk.first.w > 2 * clk.narrow) { /* the first pair was a wide one: start again */
        clk.first = p;
        return p.m;
    }
    clk.pair[0] = clk.first;
    clk.npairs = 1;
    double rate = fit_rate(&p);
    struct clk_line l = {p.t, (uint64_t)((p.m - clk.first.m) / rate), p.m, rate};
    publish(&l);
    atomic_store_explicit(&clk.mode, TSC, memory_order_relaxed);
    return on(&l, __builtin_ia32_rdtsc());
}

/* A reading at tick tsc outside the line's span (lock held): the next line. */
static double reanchor(uint64_t tsc)
{
    struct clk_line l = current();
    if (within(&l, tsc)) /* another thread was first */
        return on(&l, tsc);
    struct pair p;
    int narrow = measure(&p);
    double off = p.m - on(&l, p.t);
    if (p.t < l.at || fabs(off) > DRIFT_MAX)
        return give_up(off);
    if (tsc < l.at) /* read before the line began (another thread's) */
        return on(&l, tsc);
    if (!narrow) { /* the line serves half a span more */
        l.span += l.span / 2;
        publish(&l);
        return on(&l, tsc);
    }
    double rate = fit_rate(&p);
    double period = fmin(PERIOD_MAX, fmax(CAL_MIN, p.m - clk.first.m));
    double slew = fmax(-SLEW_MAX, fmin(SLEW_MAX, off / period));
    struct clk_line next = {p.t, (uint64_t)(period / rate), on(&l, p.t), rate * (1 + slew)};
    publish(&next);
    return on(&next, __builtin_ia32_rdtsc());
}

double clk_slow(uint64_t tsc)
{
    int mode = atomic_load_explicit(&clk.mode, memory_order_relaxed);
    if (mode == TSC) {
        struct clk_line l = current();
        double v = on(&l, tsc);
        if (!within(&l, tsc) && !pthread_mutex_trylock(&clk.lock)) {
            v = reanchor(tsc);
            pthread_mutex_unlock(&clk.lock);
            l = current();
        } /* else another thread makes the next line: this one meanwhile */
        clk_thread = l;
        return v;
    }
    if (mode == KERNEL || mode == GAVE_UP || pthread_mutex_trylock(&clk.lock))
        return clk_kernel();
    mode = atomic_load_explicit(&clk.mode, memory_order_relaxed);
    double v = mode == UNDECIDED ? start() : mode == CALIBRATING ? calibrate() : clk_kernel();
    pthread_mutex_unlock(&clk.lock);
    return v;
}

const char *clk_source(void)
{
    switch (atomic_load_explicit(&clk.mode, memory_order_relaxed)) {
    case TSC:
        return "TSC (fitted to CLOCK_MONOTONIC)";
    case GAVE_UP:
        return "CLOCK_MONOTONIC (the TSC until it drifted)";
    default: /* undecided or calibrating: what was read was CLOCK_MONOTONIC */
        return "CLOCK_MONOTONIC";
    }
}

#else

const char *clk_source(void)
{
    return "CLOCK_MONOTONIC";
}

#endif
