/* The summary's text pieces, shared by the summary and `tardy diff`: headings, times and bytes
 * with units, short names of call sites, table lines clipped to the width. */
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void txt_heading(struct strbuf *out, const char *title)
{
    size_t n = strlen(title) + 4;
    sb_printf(out, "\n== %s ", title);
    for (; n < WIDTH; n++)
        sb_puts(out, "=");
    sb_puts(out, "\n");
}

/* The unit is chosen by the magnitude, so a change (negative) reads like a time. */
const char *txt_time(double s, char *buf, size_t len)
{
    if (fabs(s) >= 1.0)
        snprintf(buf, len, "%.3f s", s);
    else if (fabs(s) >= 1e-3)
        snprintf(buf, len, "%.3f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f us", s * 1e6);
    return buf;
}

const char *txt_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (fabs(b) >= 1024 && u < 5) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

static const char *base_name(const char *path, size_t len, size_t *out_len)
{
    const char *b = path;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            b = path + i + 1;
    *out_len = len - (size_t)(b - path);
    return b;
}

void txt_site_label(const char *site, struct strbuf *out)
{
    const char *frames = site_frames(site);
    size_t flen = strcspn(frames, ";");
    if (flen == 0) {
        sb_add(out, site, site_function_len(site));
        return;
    }
    const char *sp = frame_file_space(frames, flen);
    if (!sp) {
        sb_add(out, frames, flen);
        return;
    }
    size_t blen;
    const char *file = base_name(sp + 1, flen - (size_t)(sp + 1 - frames), &blen);
    sb_add(out, frames, (size_t)(sp - frames) + 1);
    sb_add(out, file, blen);
}

void txt_site_short(const char *site, struct strbuf *out)
{
    const char *frames = site_frames(site);
    size_t flen = strcspn(frames, ";");
    const char *sp = frame_file_space(frames, flen);
    const char *colon = NULL;
    for (const char *q = frames; q < frames + flen; q++)
        if (*q == ':')
            colon = q;
    if (sp && colon && colon > sp) {
        sb_add(out, frames, (size_t)(sp - frames));
        sb_add(out, colon, (size_t)(frames + flen - colon));
        sb_puts(out, " ");
    }
    sb_add(out, site, site_function_len(site));
}

static void clip(struct strbuf *s, size_t max)
{
    if (s->len > max && max > 3) {
        s->len = max;
        memcpy(s->data + max - 3, "...", 3);
        s->data[max] = '\0';
    }
}

void txt_finish_line(struct strbuf *out, size_t start, struct strbuf *label)
{
    size_t used = out->len - start;
    clip(label, used + 12 < WIDTH ? WIDTH - used : 12);
    sb_puts(out, label->data ? label->data : "");
    sb_puts(out, "\n");
}
