/* Log-scale histogram of durations: bin b > 0 holds [2^(b-1), 2^b) nanoseconds, bin 0 below
 * 1 ns, the last bin everything from 2^(HIST_BINS-2) ns (≈ 5 days) up. Each bin keeps its count
 * and the sum of its values, so bin means survive merging. */
#ifndef TARDY_HISTOGRAM_H
#define TARDY_HISTOGRAM_H

#include <stdint.h>

#define HIST_BINS 40

struct hist {
    uint64_t count[HIST_BINS];
    double sum[HIST_BINS];
};

static inline int hist_bin(double seconds)
{
    double ns = seconds * 1e9;
    if (!(ns >= 1.0))
        return 0;
    if (ns >= 9.2e18)
        return HIST_BINS - 1;
    int b = 64 - __builtin_clzll((uint64_t)ns);
    return b < HIST_BINS ? b : HIST_BINS - 1;
}

static inline void hist_add(struct hist *h, double seconds)
{
    int b = hist_bin(seconds);
    h->count[b]++;
    h->sum[b] += seconds;
}

void hist_merge(struct hist *into, const struct hist *from);
/* Lower bound of bin b in seconds (0 for bin 0). */
double hist_bin_low(int b);
/* Upper bound of bin b in seconds (infinity for the last bin). */
double hist_bin_high(int b);

#endif
