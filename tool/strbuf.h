/* A growable text buffer: the JSON writer, the summary and the reduction's packing use it.
 * On allocation failure the buffer turns "failed" and further appends are ignored. */
#ifndef TARDY_STRBUF_H
#define TARDY_STRBUF_H

#include <stddef.h>

struct strbuf {
    char *data;
    size_t len, cap;
    int failed;
};

void sb_init(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void sb_add(struct strbuf *sb, const void *bytes, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
