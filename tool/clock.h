/* Monotonic wall clock in seconds, read through the vDSO (≈ 20 ns here).
 * Every timestamp the tool takes comes from here, so a change of clock source is one edit. */
#ifndef TARDY_CLOCK_H
#define TARDY_CLOCK_H

#include <time.h>

static inline double clk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CLK_SOURCE_NAME "CLOCK_MONOTONIC"

#endif
