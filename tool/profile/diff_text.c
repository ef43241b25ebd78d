/* The diff of two profiles as text, like the summary: which runs, their totals, then the MPI
 * call sites, compute intervals and wait rows whose time per rank changed most. */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

/* A change with its sign: "+1.234 ms", "-8 B", "+3". */
static const char *signed_time(double s, char *buf, size_t len)
{
    char t[32];
    snprintf(buf, len, "%s%s", s > 0 ? "+" : "", txt_time(s, t, sizeof t));
    return buf;
}

static const char *signed_bytes(double b, char *buf, size_t len)
{
    char t[32];
    snprintf(buf, len, "%s%s", b > 0 ? "+" : "", txt_bytes(b, t, sizeof t));
    return buf;
}

/* Per-rank mean counts are whole numbers unless the ranks differ in them. */
static const char *signed_count(double c, char *buf, size_t len)
{
    snprintf(buf, len, c == floor(c) ? "%+.0f" : "%+.2f", c);
    return buf;
}

/* A side's time, "-" where the row is not in that run. */
static const char *side_time(const struct diff_side *s, char *buf, size_t len)
{
    return s->present ? txt_time(s->time, buf, len) : "-";
}

/* "new", "gone" or the relative change of a row's time in percent. */
static const char *relative(const struct diff_row *r, char *buf, size_t len)
{
    if (!r->in_a.present)
        return "new";
    if (!r->in_b.present)
        return "gone";
    if (r->in_a.time <= 0)
        return "-";
    snprintf(buf, len, "%+.1f%%", 100 * diff_change(r) / r->in_a.time);
    return buf;
}

static void run_line(const char *name, const struct profile *p, struct strbuf *out)
{
    sb_printf(out, "%s  %s", name, p->program ? p->program : "?");
    for (int i = 0; i < p->argc && out->len < 4000; i++)
        sb_printf(out, " %s", p->argv[i]);
    sb_printf(out, "\n   %d rank%s on %d host%s, started %s", p->ranks, p->ranks == 1 ? "" : "s",
              p->hosts, p->hosts == 1 ? "" : "s", p->start_time ? p->start_time : "?");
    sb_puts(out, "\n");
    if (p->path)
        sb_printf(out, "   %s\n", p->path);
}

static void header(const struct profile_diff *d, struct strbuf *out)
{
    static const char *const metric[] = {"wall", "mpi", "compute", "wait_time"};
    static const char *const label[] = {"wall", "MPI", "compute", "waiting"};
    char x[32], y[32], c[40];
    txt_heading(out, "tardy diff: A -> B");
    run_line("A", d->a, out);
    run_line("B", d->b, out);
    if (d->a->ranks != d->b->ranks)
        sb_printf(out, "The rank counts differ (A %d, B %d): every figure is a per-rank mean "
                       "(sum over ranks / ranks).\n", d->a->ranks, d->b->ranks);
    else
        sb_puts(out, "Every figure is a per-rank mean (sum over ranks / ranks).\n");
    sb_printf(out, "%-10s %10s %10s %11s\n", "per rank", "A", "B", "change");
    for (size_t i = 0; i < sizeof metric / sizeof *metric; i++) {
        double a = diff_rank_mean(d->a, metric[i]), b = diff_rank_mean(d->b, metric[i]);
        if (isfinite(a) && isfinite(b))
            sb_printf(out, "%-10s %10s %10s %11s\n", label[i], txt_time(a, x, sizeof x),
                      txt_time(b, y, sizeof y), signed_time(b - a, c, sizeof c));
    }
}

static void row_label(const struct diff_row *r, struct strbuf *label)
{
    if (r->kind == ROW_MPI) {
        txt_site_label(r->a, label);
    } else if (r->kind == ROW_INTERVAL) {
        txt_site_short(r->a, label);
        sb_puts(label, " -> ");
        txt_site_short(r->b ? r->b : "", label);
    } else {
        sb_printf(label, "%s at ", r->a);
        txt_site_short(r->b ? r->b : "", label);
    }
}

/* The rows of one kind (sorted by the engine), at most top. */
static void kind_table(const struct profile_diff *d, int kind, const char *what, int top,
                       struct strbuf *out)
{
    size_t n = 0, added = 0, gone = 0, first = d->n;
    for (size_t i = 0; i < d->n; i++)
        if (d->rows[i].kind == kind) {
            first = n++ ? first : i;
            added += !d->rows[i].in_a.present;
            gone += !d->rows[i].in_b.present;
        }
    if (!n)
        return;
    char title[160], a[32], b[32], c[40], p[32], k[32], y[40];
    snprintf(title, sizeof title, "%s: top %d of %zu by change (%zu new, %zu vanished)", what,
             top < (int)n ? top : (int)n, n, added, gone);
    txt_heading(out, title);
    int mpi = kind == ROW_MPI;
    sb_printf(out, "%10s %10s %11s %7s %7s ", "A", "B", "change", "%",
              kind == ROW_WAIT ? "waits" : mpi ? "calls" : "count");
    if (mpi)
        sb_printf(out, "%9s  %-14s call site (innermost)\n", "bytes", "function");
    else
        sb_puts(out, kind == ROW_INTERVAL ? " interval: function:line MPI call -> next\n"
                                          : " pattern at the waiting call site\n");
    struct strbuf label;
    sb_init(&label);
    for (size_t i = first; i < d->n && i < first + n && (int)(i - first) < top; i++) {
        const struct diff_row *r = &d->rows[i];
        label.len = 0;
        row_label(r, &label);
        size_t start = out->len;
        sb_printf(out, "%10s %10s %11s %7s %7s ", side_time(&r->in_a, a, sizeof a),
                  side_time(&r->in_b, b, sizeof b), signed_time(diff_change(r), c, sizeof c),
                  relative(r, p, sizeof p), signed_count(r->in_b.count - r->in_a.count, k, sizeof k));
        if (mpi)
            sb_printf(out, "%9s  %-14.*s ", signed_bytes(r->in_b.bytes - r->in_a.bytes, y, sizeof y),
                      (int)site_function_len(r->a), r->a);
        else
            sb_puts(out, " ");
        txt_finish_line(out, start, &label);
    }
    sb_free(&label);
}

void diff_write(const struct profile_diff *d, int top, struct strbuf *out)
{
    header(d, out);
    kind_table(d, ROW_MPI, "MPI call sites", top, out);
    kind_table(d, ROW_INTERVAL, "compute intervals", top, out);
    kind_table(d, ROW_WAIT, "wait states", top, out);
}
