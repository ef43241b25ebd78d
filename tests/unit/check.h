/* Minimal assertions for the unit tests: a failed check prints where and why and makes the
 * test exit 1 at the end (all checks run). */
#ifndef TARDY_TEST_CHECK_H
#define TARDY_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* Integers compared exactly, both values printed when they differ. */
#define CHECK_INT(a, b) \
    do { \
        long long a_ = (long long)(a), b_ = (long long)(b); \
        if (a_ != b_) { \
            fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, \
                    b_); \
            check_failures++; \
        } \
    } while (0)

/* Strings compared exactly (NULL is a failure). */
#define CHECK_STR(a, b) \
    do { \
        const char *a_ = (a), *b_ = (b); \
        if (!a_ || strcmp(a_, b_)) { \
            fprintf(stderr, "%s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
                    a_ ? a_ : "(null)", b_); \
            check_failures++; \
        } \
    } while (0)

#define CHECK_DONE() return check_failures ? 1 : 0

#endif
