/* Log-scale duration histogram: merging and bin bounds. */
#include "base.h"

#include <math.h>

void hist_merge(struct hist *into, const struct hist *from)
{
    for (int b = 0; b < HIST_BINS; b++) {
        into->count[b] += from->count[b];
        into->sum[b] += from->sum[b];
    }
}

double hist_bin_low(int b)
{
    return b <= 0 ? 0.0 : ldexp(1.0, b - 1) * 1e-9;
}

double hist_bin_high(int b)
{
    return b >= HIST_BINS - 1 ? INFINITY : ldexp(1.0, b) * 1e-9;
}
