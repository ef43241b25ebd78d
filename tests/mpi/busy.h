/* The wait-state test programs' ground truth: a monotonic clock and a busy wait of known
 * length (computing, not sleeping, so the rank is late by exactly that much). */
#ifndef TESTS_BUSY_H
#define TESTS_BUSY_H

#include <time.h>

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline void busy(double s)
{
    double end = now() + s;
    while (now() < end)
        ;
}

#endif
