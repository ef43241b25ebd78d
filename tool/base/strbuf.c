/* Growable text buffer. */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(struct strbuf *sb)
{
    memset(sb, 0, sizeof *sb);
}

void sb_free(struct strbuf *sb)
{
    free(sb->data);
    sb_init(sb);
}

static int sb_reserve(struct strbuf *sb, size_t extra)
{
    if (sb->failed)
        return 0;
    if (sb->len + extra + 1 <= sb->cap)
        return 1;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->failed = 1;
        return 0;
    }
    sb->data = p;
    sb->cap = cap;
    return 1;
}

void sb_add(struct strbuf *sb, const void *bytes, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, bytes, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

int sb_read(struct strbuf *sb, FILE *f)
{
    char chunk[65536];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;)
        sb_add(sb, chunk, n);
    return ferror(f) || sb->failed ? -1 : 0;
}

void sb_puts(struct strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

/* Formats into the spare room first; only a text longer than that is formatted twice. */
void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
    if (sb->failed)
        return;
    va_list ap;
    size_t room = sb->cap > sb->len ? sb->cap - sb->len : 0;
    va_start(ap, fmt);
    int n = vsnprintf(room ? sb->data + sb->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (room)
            sb->data[sb->len] = '\0';
        return;
    }
    if ((size_t)n >= room) {
        if (!sb_reserve(sb, (size_t)n)) {
            if (room)
                sb->data[sb->len] = '\0'; /* the cut text of the first try */
            return;
        }
        va_start(ap, fmt);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    sb->len += (size_t)n;
}

void sb_printable(struct strbuf *sb)
{
    unsigned char *s = (unsigned char *)sb->data;
    for (size_t i = 0; s && i < sb->len; i++)
        if ((s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f)
            s[i] = '?';
        else if (s[i] == 0xc2 && i + 1 < sb->len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
            s[i] = s[i + 1] = '?'; /* a C1 control in UTF-8: 0xc2 0x80..0x9f */
}

char *str_trim(char *s)
{
    s += strspn(s, " \t");
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}
