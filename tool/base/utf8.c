/* UTF-8 validity: JSON's strings are UTF-8 (jansson refuses others) and Extra-P reads its
 * inputs as UTF-8, so the readers and the writer check the bytes they are given. */
#include <string.h>

#include "base.h"

size_t utf8_char(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int more = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
             : c >= 0xf0 && c <= 0xf4                  ? 3 : -1;
    if (more < 0 || n <= (size_t)more)
        return 0;
    unsigned cp = c & (0x3fu >> more);
    for (int k = 1; k <= more; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[k] & 0x3fu);
    }
    if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (more == 3 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return (size_t)more + 1;
}

int utf8_valid(const char *s)
{
    size_t n = strlen(s), k;
    for (size_t i = 0; i < n; i += k)
        if (!(k = utf8_char((const unsigned char *)s + i, n - i)))
            return 0;
    return 1;
}
