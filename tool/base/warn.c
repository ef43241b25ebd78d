/* Warnings to stderr, written with one write(2) so lines of different ranks do not mix. */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int tardy_rank = -1;

void tardy_warn(const char *fmt, ...)
{
    char line[1024];
    int n = tardy_rank >= 0 ? snprintf(line, sizeof line, "tardy[rank %d]: ", tardy_rank)
                            : snprintf(line, sizeof line, "tardy: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}
