/* Minimal assertions for the unit tests: a failed check prints where and why and makes the
 * test exit 1 at the end (all checks run). */
#ifndef TARDY_TEST_CHECK_H
#define TARDY_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures;

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++; \
        } \
    } while (0)

#define CHECK_NEAR(a, b, rel) \
    do { \
        double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (rel) * fabs(b_))) { \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (rel %g)\n", __FILE__, \
                    __LINE__, #a, a_, b_, (double)(rel)); \
            check_failures++; \
        } \
    } while (0)

#define CHECK_DONE() return check_failures ? 1 : 0

#endif
