/* Numbers as measurements and parameters are written: decimal notation, as Extra-P and JSON
 * read them. strtod alone also takes hexadecimal (0x40), inf and nan, which no measurement,
 * rank count or size is, and would make "p=0x40" a target of 64 ranks. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* The length of the digits at s (at most n bytes). */
static size_t digits(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && isdigit((unsigned char)s[k]))
        k++;
    return k;
}

/* Whether the n bytes at s are [+-] digits [. digits] [e [+-] digits], a digit on one side of
 * the point at least. */
static int decimal_form(const char *s, size_t n)
{
    size_t i = n && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    size_t whole = digits(s + i, n - i);
    i += whole;
    size_t part = 0;
    if (i < n && s[i] == '.') {
        part = digits(s + i + 1, n - i - 1);
        i += 1 + part;
    }
    if (!whole && !part)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t power = digits(s + i, n - i);
        if (!power)
            return 0;
        i += power;
    }
    return i == n;
}

int decimal_parse(const char *s, size_t n, double *v)
{
    if (!decimal_form(s, n))
        return DECIMAL_NONE;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end != s + n)
        return DECIMAL_NONE; /* digits go on past the n bytes */
    return isinf(*v) && errno == ERANGE ? DECIMAL_RANGE : DECIMAL_OK;
}

int decimal_number(const char *s, double *v)
{
    double x;
    if (!s || decimal_parse(s, strlen(s), &x) != DECIMAL_OK)
        return 0;
    if (v)
        *v = x;
    return 1;
}
