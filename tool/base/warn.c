/* Warnings to stderr, written with one write(2) so lines of different ranks do not mix. */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int tardy_rank = -1;

static void vwarn(const char *fmt, va_list ap)
{
    char line[1024];
    int n = tardy_rank >= 0 ? snprintf(line, sizeof line, "tardy[rank %d]: ", tardy_rank)
                            : snprintf(line, sizeof line, "tardy: ");
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

void tardy_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarn(fmt, ap);
    va_end(ap);
}

void tardy_warn_once(atomic_int *once, const char *fmt, ...)
{
    /* The plain load first: a problem that repeats on many threads (a full table) then reads
     * the flag's cache line instead of writing it each time. */
    if (atomic_load_explicit(once, memory_order_relaxed) ||
        atomic_exchange_explicit(once, 1, memory_order_relaxed))
        return;
    va_list ap;
    va_start(ap, fmt);
    vwarn(fmt, ap);
    va_end(ap);
}
