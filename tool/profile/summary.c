/* Summary text: run header, MPI call paths, compute intervals, per-rank compute time,
 * wait states and their causes. */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

struct ranked {
    const struct prof_row *row;
};

static int by_memory_desc(const void *x, const void *y)
{
    double a = ((const struct ranked *)x)->row->n.mem_alloc.sum;
    double b = ((const struct ranked *)y)->row->n.mem_alloc.sum;
    return a < b ? 1 : a > b ? -1 : 0;
}

static int by_time_desc(const void *x, const void *y)
{
    double a = ((const struct ranked *)x)->row->n.time.sum;
    double b = ((const struct ranked *)y)->row->n.time.sum;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* Rows of one kind sorted by cmp; caller frees. */
static struct ranked *sorted_by(const struct profile *p, int kind, size_t *n,
                                int (*cmp)(const void *, const void *))
{
    struct ranked *v = malloc((p->rows.n + 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < p->rows.n; i++)
        if (p->rows.rows[i].kind == kind)
            v[(*n)++].row = &p->rows.rows[i];
    qsort(v, *n, sizeof *v, cmp);
    return v;
}

static struct ranked *sorted_rows(const struct profile *p, int kind, size_t *n)
{
    return sorted_by(p, kind, n, by_time_desc);
}

static double mean_of(const struct red_stat *s, int ranks)
{
    return ranks > 0 ? s->sum / ranks : 0;
}

static void header(const struct profile *p, struct strbuf *out)
{
    char t1[32];
    txt_heading(out, "tardy summary");
    sb_printf(out, "program   %s", p->program ? p->program : "?");
    for (int i = 0; i < p->argc && out->len < 4000; i++)
        sb_printf(out, " %s", p->argv[i]);
    static const char *const level[] = {"single", "funneled", "serialized", "multiple"};
    sb_printf(out, "\nranks     %d on %d host%s   call-path depth %d   threads %s\n", p->ranks,
              p->hosts, p->hosts == 1 ? "" : "s", p->depth,
              p->thread_level >= 0 && p->thread_level < 4 ? level[p->thread_level] : "?");
    size_t liblen = p->mpi_library ? strcspn(p->mpi_library, "\n") : 0;
    sb_printf(out, "MPI       %.*s (MPI %s)   tardy %s via %s\n", (int)(liblen > 60 ? 60 : liblen),
              p->mpi_library ? p->mpi_library : "", p->mpi_version ? p->mpi_version : "?",
              p->tardy_version ? p->tardy_version : "?",
              p->interface && *p->interface ? p->interface : "PMPI");
    const struct red_stat *wall = profile_rank_metric(p, "wall");
    const struct red_stat *mpi = profile_rank_metric(p, "mpi");
    const struct red_stat *comp = profile_rank_metric(p, "compute");
    if (wall && mpi && comp && wall->sum > 0)
        sb_printf(out, "time      %s wall (longest rank %d)   MPI %.1f%%   compute %.1f%% "
                       "of all ranks' time\n",
                  txt_time(wall->max, t1, sizeof t1), wall->max_rank,
                  100 * mpi->sum / wall->sum, 100 * comp->sum / wall->sum);
    const struct red_stat *crowd = profile_rank_metric(p, "ranks_per_cpu");
    if (crowd && crowd->max > 1) {
        const struct red_stat *on = profile_rank_metric(p, "host_ranks");
        const struct red_stat *cpus = profile_rank_metric(p, "host_cpus");
        sb_printf(out, "note      ranks outnumber CPUs: %.3g ranks per online CPU on the host of "
                       "rank %d", crowd->max, crowd->max_rank);
        if (on && cpus)
            sb_printf(out, " (%.0f ranks, %.0f CPUs)", on->max, cpus->min);
        sb_puts(out, ";\n          MPI that busy-polls while it waits then reports most of "
                     "the waiting as MPI time\n");
    }
    if (p->nparams) {
        sb_puts(out, "params   ");
        for (int i = 0; i < p->nparams; i++)
            sb_printf(out, " %s=%s", p->params[i].key, p->params[i].value);
        sb_puts(out, "\n");
    }
    sb_printf(out, "started   %s   clock %s\n", p->start_time ? p->start_time : "?",
              p->clock ? p->clock : "?");
    if (p->path)
        sb_printf(out, "profile   %s\n", p->path);
}

static void mpi_table(const struct profile *p, int top, struct strbuf *out)
{
    size_t n;
    struct ranked *v = sorted_rows(p, ROW_MPI, &n);
    const struct red_stat *mpi = profile_rank_metric(p, "mpi");
    double total = mpi && mpi->sum > 0 ? mpi->sum : 1;
    char title[80], t[32], b[32];
    snprintf(title, sizeof title, "MPI call paths: top %d of %zu by time", top < (int)n ? top : (int)n,
             n);
    txt_heading(out, title);
    sb_printf(out, "%10s %6s %9s %10s %6s  %-16s %s\n", "time", "%MPI", "calls", "bytes",
              "imb", "function", "call site (innermost frame)");
    struct strbuf label;
    sb_init(&label);
    for (size_t i = 0; v && i < n && (int)i < top; i++) {
        const struct prof_nums *r = &v[i].row->n;
        double mean = mean_of(&r->time, p->ranks);
        label.len = 0;
        txt_site_label(v[i].row->a, &label);
        size_t start = out->len;
        sb_printf(out, "%10s %6.1f %9.0f %10s %6.2f  %-16.*s ", txt_time(r->time.sum, t, sizeof t),
                  100 * r->time.sum / total, r->count.sum,
                  txt_bytes(r->sent.sum + r->recv.sum, b, sizeof b),
                  mean > 0 ? r->time.max / mean : 0, (int)site_function_len(v[i].row->a),
                  v[i].row->a);
        txt_finish_line(out, start, &label);
    }
    sb_free(&label);
    free(v);
}

static void interval_table(const struct profile *p, int top, struct strbuf *out)
{
    size_t n;
    struct ranked *v = sorted_rows(p, ROW_INTERVAL, &n);
    const struct red_stat *comp = profile_rank_metric(p, "compute");
    double total = comp && comp->sum > 0 ? comp->sum : 1;
    char title[80], t[32], m[32], c[32];
    snprintf(title, sizeof title, "compute intervals: top %d of %zu by time",
             top < (int)n ? top : (int)n, n);
    txt_heading(out, title);
    sb_printf(out, "%10s %6s %10s %5s %9s %10s  %s\n", "time", "%comp", "max/rank", "imb",
              "count", "mean", "interval: function:line MPI call -> next");
    struct strbuf label;
    sb_init(&label);
    for (size_t i = 0; v && i < n && (int)i < top; i++) {
        const struct prof_nums *r = &v[i].row->n;
        double mean = mean_of(&r->time, p->ranks);
        label.len = 0;
        txt_site_short(v[i].row->a, &label);
        sb_puts(&label, " -> ");
        txt_site_short(v[i].row->b ? v[i].row->b : "", &label);
        size_t start = out->len;
        sb_printf(out, "%10s %6.1f %10s %5.2f %9.0f %10s  ", txt_time(r->time.sum, t, sizeof t),
                  100 * r->time.sum / total, txt_time(r->time.max, m, sizeof m),
                  mean > 0 ? r->time.max / mean : 0, r->count.sum,
                  txt_time(r->count.sum > 0 ? r->time.sum / r->count.sum : 0, c, sizeof c));
        txt_finish_line(out, start, &label);
    }
    sb_free(&label);
    free(v);
}

/* The causes of one wait row: the late ranks' regions with their cost, largest first. */
static void cause_lines(const struct profile *p, const struct prof_row *w, struct strbuf *out)
{
    size_t n;
    struct ranked *v = sorted_rows(p, ROW_CAUSE, &n);
    size_t plen = strlen(w->a);
    struct strbuf label;
    sb_init(&label);
    char t[32];
    int shown = 0;
    for (size_t i = 0; v && i < n && shown < 3; i++) {
        const struct prof_row *c = v[i].row;
        if (strncmp(c->a, w->a, plen) || c->a[plen] != '\n' || strcmp(c->a + plen + 1, w->b))
            continue;
        label.len = 0;
        const char *tab = c->b ? strchr(c->b, '\t') : NULL;
        if (!c->b || c->b[0] == '?') {
            sb_puts(&label, "(no hotspot region of the late rank explains it)");
        } else if (tab) {
            char *from = strndup(c->b, (size_t)(tab - c->b));
            txt_site_short(from ? from : "", &label);
            free(from);
            sb_puts(&label, " -> ");
            txt_site_short(tab + 1, &label);
        } else {
            sb_puts(&label, "in ");
            txt_site_short(c->b, &label);
        }
        size_t start = out->len;
        sb_printf(out, "%10s %6.1f%%  cause: ", txt_time(c->n.time.sum, t, sizeof t),
                  w->n.time.sum > 0 ? 100 * c->n.time.sum / w->n.time.sum : 0);
        txt_finish_line(out, start, &label);
        shown++;
    }
    sb_free(&label);
    free(v);
}

/* Wait states: where ranks waited (pattern × call site), for whom, and the causes. */
static void wait_section(const struct profile *p, int top, struct strbuf *out)
{
    const struct red_stat *wt = profile_rank_metric(p, "wait_time");
    if (!wt)
        return;
    size_t n;
    struct ranked *v = sorted_rows(p, ROW_WAIT, &n);
    const struct red_stat *mpi = profile_rank_metric(p, "mpi");
    const struct red_stat *viol = profile_rank_metric(p, "clock_violations");
    double total = mpi && mpi->sum > 0 ? mpi->sum : 1;
    char title[96], t[32], m[32];
    snprintf(title, sizeof title, "wait states: %s, %.1f%% of MPI time; top %d of %zu",
             txt_time(wt->sum, t, sizeof t), 100 * wt->sum / total, top < (int)n ? top : (int)n,
             n);
    txt_heading(out, title);
    int pw = (int)strlen("pattern"); /* the widest pattern shown */
    for (size_t i = 0; v && i < n && (int)i < top; i++)
        if ((int)strlen(v[i].row->a) > pw)
            pw = (int)strlen(v[i].row->a);
    sb_printf(out, "%10s %6s %7s %10s %5s  %-*s %s\n", "time", "%MPI", "count", "max/rank",
              "late", pw, "pattern", "waiting call site");
    struct strbuf label;
    sb_init(&label);
    for (size_t i = 0; v && i < n && (int)i < top; i++) {
        const struct prof_row *w = v[i].row;
        label.len = 0;
        txt_site_short(w->b ? w->b : "", &label);
        size_t start = out->len;
        sb_printf(out, "%10s %6.1f %7.0f %10s %5d  %-*s ", txt_time(w->n.time.sum, t, sizeof t),
                  100 * w->n.time.sum / total, w->n.count.sum,
                  txt_time(w->n.time.max, m, sizeof m), w->n.late.ranks ? w->n.late.max_rank : -1,
                  pw, w->a);
        txt_finish_line(out, start, &label);
        cause_lines(p, w, out);
    }
    if (viol && viol->sum > 0)
        sb_printf(out, "clock condition violated by %.0f messages or collectives (waits clamped)\n",
                  viol->sum);
    sb_free(&label);
    free(v);
}

static void rank_section(const struct profile *p, struct strbuf *out)
{
    const struct red_stat *comp = profile_rank_metric(p, "compute");
    char a[32], b[32], c[32];
    txt_heading(out, "compute time per rank");
    if (!comp)
        return;
    sb_printf(out, "max %s at rank %d (longest per-rank compute)   mean %s   min %s at rank %d\n",
              txt_time(comp->max, a, sizeof a), comp->max_rank,
              txt_time(mean_of(comp, p->ranks), b, sizeof b), txt_time(comp->min, c, sizeof c),
              comp->min_rank);
    uint64_t most = 0;
    int first = -1, last = -1;
    for (int i = 0; i < RANK_HIST_BINS; i++) {
        if (p->rank_hist[i] > most)
            most = p->rank_hist[i];
        if (p->rank_hist[i]) {
            if (first < 0)
                first = i;
            last = i;
        }
    }
    if (p->ranks < 2 || first < 0)
        return;
    double w = (p->rank_hist_hi - p->rank_hist_lo) / RANK_HIST_BINS;
    for (int i = first; i <= last; i++) {
        if (!p->rank_hist[i] && p->ranks <= RANK_HIST_BINS)
            continue; /* few ranks: empty bins say nothing */
        int bar = (int)(50.0 * (double)p->rank_hist[i] / (double)most + 0.5);
        sb_printf(out, "%10s .. %-10s |", txt_time(p->rank_hist_lo + i * w, a, sizeof a),
                  txt_time(p->rank_hist_lo + (i + 1) * w, b, sizeof b));
        for (int k = 0; k < bar; k++)
            sb_puts(out, "#");
        sb_printf(out, " %llu\n", (unsigned long long)p->rank_hist[i]);
    }
}

static void comm_section(const struct profile *p, struct strbuf *out)
{
    const struct red_stat *partners = profile_rank_metric(p, "partners");
    const struct red_stat *sent = profile_rank_metric(p, "p2p_sent_bytes");
    const struct red_stat *one = profile_rank_metric(p, "max_bytes_one_partner");
    char a[32], b[32];
    if (!partners || !sent || partners->max == 0)
        return;
    txt_heading(out, "point-to-point partners");
    sb_printf(out, "partners per rank: min %.0f  mean %.1f  max %.0f (rank %d)\n", partners->min,
              mean_of(partners, p->ranks), partners->max, partners->max_rank);
    sb_printf(out, "bytes sent per rank: mean %s  max %s (rank %d)", txt_bytes(mean_of(sent, p->ranks), a, sizeof a),
              txt_bytes(sent->max, b, sizeof b), sent->max_rank);
    if (one)
        sb_printf(out, "   largest volume to one partner %s", txt_bytes(one->max, a, sizeof a));
    sb_puts(out, "\n");
}

static void memory_section(const struct profile *p, int top, struct strbuf *out)
{
    const struct red_stat *hwm = profile_rank_metric(p, "mpi_memory_high_water");
    const struct red_stat *live = profile_rank_metric(p, "mpi_memory_live");
    if (!hwm || !live)
        return;
    size_t n, shown = 0;
    struct ranked *v = sorted_by(p, ROW_MPI, &n, by_memory_desc);
    char a[32], b[32], c[32], d[32];
    txt_heading(out, "MPI library memory: allocated inside MPI calls, by call site");
    sb_printf(out, "high-water mark per rank   max %10s (rank %d)   mean %s\n",
              txt_bytes(hwm->max, a, sizeof a), hwm->max_rank,
              txt_bytes(mean_of(hwm, p->ranks), b, sizeof b));
    sb_printf(out, "held at MPI_Finalize       max %10s (rank %d)   mean %s\n",
              txt_bytes(live->max, c, sizeof c), live->max_rank,
              txt_bytes(mean_of(live, p->ranks), d, sizeof d));
    sb_puts(out, "allocated, allocs, freed, live: all ranks; live max: the rank holding most at "
                 "MPI_Finalize\n");
    sb_printf(out, "%10s %8s %10s %10s %10s  %-16s %s\n", "allocated", "allocs", "freed",
              "live", "live max", "function", "call site (innermost frame)");
    struct strbuf label;
    sb_init(&label);
    for (size_t i = 0; v && i < n && (int)shown < top; i++) {
        const struct prof_nums *r = &v[i].row->n;
        if (!r->mem_allocs.ranks)
            continue;
        shown++;
        label.len = 0;
        txt_site_label(v[i].row->a, &label);
        size_t start = out->len;
        sb_printf(out, "%10s %8.0f %10s %10s %10s  %-16.*s ", txt_bytes(r->mem_alloc.sum, a, sizeof a),
                  r->mem_allocs.sum, txt_bytes(r->mem_freed.sum, b, sizeof b),
                  txt_bytes(r->mem_live.sum, c, sizeof c), txt_bytes(r->mem_live.max, d, sizeof d),
                  (int)site_function_len(v[i].row->a), v[i].row->a);
        txt_finish_line(out, start, &label);
    }
    sb_free(&label);
    free(v);
}

static int ctr_key; /* the counter sorted by (qsort has no context argument) */

static int by_counter_desc(const void *x, const void *y)
{
    double a = ((const struct ranked *)x)->row->n.ctr[ctr_key].sum;
    double b = ((const struct ranked *)y)->row->n.ctr[ctr_key].sum;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* Intervals and MPI call sites with the largest totals of counter k. */
static void counter_table(const struct profile *p, int k, int top, struct strbuf *out)
{
    struct ranked *v = malloc((p->rows.n + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < p->rows.n; i++)
        if ((p->rows.rows[i].kind == ROW_MPI || p->rows.rows[i].kind == ROW_INTERVAL) &&
            p->rows.rows[i].n.ctr[k].sum != 0)
            v[n++].row = &p->rows.rows[i];
    ctr_key = k;
    if (v)
        qsort(v, n, sizeof *v, by_counter_desc);
    const struct prof_row *total = NULL;
    char name[300];
    snprintf(name, sizeof name, "counter:%s", p->counters[k]);
    total = rowset_find(&p->rows, ROW_RANK, name, NULL);
    double all = total && total->n.time.sum != 0 ? total->n.time.sum : 1;
    sb_printf(out, "%s: top %d of %zu sites where it counted\n", p->counters[k], top < (int)n ? top : (int)n, n);
    sb_printf(out, "%14s %6s %14s %5s  %s\n", "total", "%", "max/rank", "imb",
              "interval (a -> b) or MPI call site");
    struct strbuf label;
    sb_init(&label);
    for (size_t i = 0; v && i < n && (int)i < top; i++) {
        const struct prof_row *r = v[i].row;
        double mean = mean_of(&r->n.ctr[k], p->ranks);
        label.len = 0;
        if (r->kind == ROW_INTERVAL) {
            txt_site_short(r->a, &label);
            sb_puts(&label, " -> ");
            txt_site_short(r->b ? r->b : "", &label);
        } else {
            sb_add(&label, r->a, site_function_len(r->a));
            sb_puts(&label, " at ");
            txt_site_label(r->a, &label);
        }
        size_t start = out->len;
        sb_printf(out, "%14.0f %6.1f %14.0f %5.2f  ", r->n.ctr[k].sum, 100 * r->n.ctr[k].sum / all,
                  r->n.ctr[k].max, mean > 0 ? r->n.ctr[k].max / mean : 0);
        txt_finish_line(out, start, &label);
    }
    sb_free(&label);
    free(v);
}

static void counter_section(const struct profile *p, int top, struct strbuf *out)
{
    if (!p->ncounters && !p->counter_note)
        return;
    int pvars = 0;
    for (int k = 0; k < p->ncounters; k++)
        pvars += !strncmp(p->counters[k], "mpi_t:", 6);
    txt_heading(out, p->counter_multiplex ? "PAPI counters (multiplexed)"
                 : pvars == p->ncounters && pvars ? "MPI_T performance variables per call"
                 : pvars ? "PAPI counters and MPI_T performance variables" : "PAPI counters");
    if (p->counter_note)
        sb_puts(out, p->counter_note);
    if (!p->ncounters)
        return;
    int width = 8; /* the longest name, so MPI_T variables' long names stay whole */
    for (int k = 0; k < p->ncounters; k++)
        if ((int)strlen(p->counters[k]) > width)
            width = (int)strlen(p->counters[k]);
    sb_printf(out, "%-*s %14s %14s %14s %14s\n", width, "per rank", "total", "min", "mean",
              "max");
    for (int k = 0; k < p->ncounters; k++) {
        char name[300];
        snprintf(name, sizeof name, "counter:%s", p->counters[k]);
        const struct red_stat *t = profile_rank_metric(p, name);
        if (t)
            sb_printf(out, "%-*s %14.0f %14.0f %14.0f %14.0f (rank %d)\n", width,
                      p->counters[k], t->sum, t->min, mean_of(t, p->ranks), t->max, t->max_rank);
    }
    for (int k = 0; k < p->ncounters; k++)
        counter_table(p, k, top < 5 ? top : 5, out);
}

/* MPI_T: what was written, the performance variables (non-zero ones), events per site. */
static void mpit_section(const struct profile *p, int top, struct strbuf *out)
{
    if (p->cvars_total < 0 && !p->mpit_note)
        return;
    txt_heading(out, "MPI library (MPI_T)");
    sb_printf(out, "%d control variables (%d recorded in the profile), %d performance variables",
              p->cvars_total, p->ncvars, p->pvars_total);
    if (p->events_total >= 0)
        sb_printf(out, ", %d events", p->events_total);
    sb_puts(out, "\n");
    for (int i = 0; i < p->ncvars; i++) {
        const struct prof_cvar *c = &p->cvars[i];
        const char *by = !c->origin ? "" : !strcmp(c->origin, "lua") ? "; by tardy.on_init"
                                         : !strcmp(c->origin, "option") ? "; by TARDY_CVARS" : "";
        if (c->written)
            sb_printf(out, "set %s = %s (was %s, now %s%s)\n", c->name, c->written,
                      c->before ? c->before : "?", c->value, by);
    }
    if (p->mpit_note)
        sb_puts(out, p->mpit_note);
    int shown = 0;
    for (size_t i = 0; i < p->rows.n && shown < top; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        if (r->kind != ROW_PVAR || (r->n.time.min == 0 && r->n.time.max == 0))
            continue;
        if (!shown++)
            sb_printf(out, "%-40s %-13s %14s %14s %14s\n", "performance variable (non-zero)",
                      "class", "min", "mean", "max");
        sb_printf(out, "%-40.40s %-13.13s %14.6g %14.6g %14.6g (rank %d)\n", r->a,
                  r->b ? r->b : "", r->n.time.min, mean_of(&r->n.time, p->ranks), r->n.time.max,
                  r->n.time.max_rank);
    }
    struct strbuf label;
    sb_init(&label);
    shown = 0;
    for (size_t i = 0; i < p->rows.n && shown < top; i++) {
        const struct prof_row *r = &p->rows.rows[i];
        if (r->kind != ROW_EVENT)
            continue;
        if (!shown++)
            sb_printf(out, "%12s  %-30s %s\n", "events", "MPI_T event", "inside MPI call");
        label.len = 0;
        sb_add(&label, r->b ? r->b : "", r->b ? site_function_len(r->b) : 0);
        if (*site_frames(r->b ? r->b : "")) { /* "(outside MPI calls)@" has no frames */
            sb_puts(&label, " at ");
            txt_site_label(r->b, &label);
        }
        size_t start = out->len;
        sb_printf(out, "%12.0f  %-30.30s ", r->n.count.sum, r->a);
        txt_finish_line(out, start, &label);
    }
    sb_free(&label);
}

/* An end of an interval in three digits; whole numbers below a million in full (1780, not
 * 1.78e+03, next to a value printed 1869.26). */
static void interval_end(double v, char out[24])
{
    if (fabs(v) >= 999.5 && fabs(v) < 999999.5) /* what rounds to 1000 too: not "1e+03..1000" */
        snprintf(out, 24, "%.0f", v);
    else
        snprintf(out, 24, "%.3g", v);
}

/* A prediction's fit error and interval as the table shows them. */
static void prediction_cells(const struct prof_prediction *q, char fe[16], char iv[64])
{
    snprintf(fe, 16, "-");
    snprintf(iv, 64, "-");
    if (isfinite(q->fit_error))
        snprintf(fe, 16, "%.1f%%", q->fit_error);
    if (isfinite(q->low) && isfinite(q->high)) {
        char lo[24], hi[24];
        interval_end(q->low, lo);
        interval_end(q->high, hi);
        snprintf(iv, 64, "%s..%s (%.0f%%)", lo, hi, q->coverage);
    }
    else if (isfinite(q->uncertainty))
        snprintf(iv, 64, "+/-%.1f%%", q->uncertainty);
}

void summary_predictions(const struct profile *p, struct strbuf *out)
{
    if (!p->npredictions && !p->prediction_note)
        return;
    txt_heading(out, "predictions");
    /* columns as wide as their widest cell (targets of four parameters, intervals of large
     * counts in exponent notation), so that every line's columns stay aligned */
    int wt = 18, wi = 21;
    char fe[16], iv[64];
    for (int i = 0; i < p->npredictions; i++) {
        prediction_cells(&p->predictions[i], fe, iv);
        int t = (int)strlen(p->predictions[i].target), v = (int)strlen(iv);
        wt = t > wt ? t : wt;
        wi = v > wi ? v : wi;
    }
    if (p->npredictions)
        sb_printf(out, "%-*s %12s %8s %*s  %-12s %s\n", wt, "target", "predicted", "fit err", wi,
                  "interval (coverage)", "family", "metric (model)");
    for (int i = 0; i < p->npredictions; i++) {
        const struct prof_prediction *q = &p->predictions[i];
        prediction_cells(q, fe, iv);
        /* the metric and model in full: a name cut at the width cannot be found again */
        sb_printf(out, "%-*s %12.6g %8s %*s  %-12s %s (%s)%s\n", wt, q->target, q->value, fe, wi,
                  iv, q->family, q->metric, q->model, q->extrapolated ? " [extrapolated]" : "");
    }
    /* after the numbers, why some are missing: a line per note (the default policy gives one
     * per reason) */
    for (const char *s = p->prediction_note; s && *s;) {
        size_t len = strcspn(s, "\n");
        sb_printf(out, "note: %.*s\n", (int)len, s);
        s += len + (s[len] == '\n');
    }
}

void summary_partial(const struct profile *p, int top, struct strbuf *out)
{
    if (!p->partial)
        return;
    char title[120];
    snprintf(title, sizeof title, "PARTIAL profile: %d of %d ranks contributed", p->nstops,
             p->ranks);
    txt_heading(out, title);
    struct strbuf miss;
    sb_init(&miss);
    profile_missing_ranks(p, &miss);
    if (miss.len)
        sb_printf(out, "missing   ranks %.*s (no partial profile: killed without a snapshot, "
                       "or the file is not among the inputs)\n",
                  (int)(miss.len > 300 ? 300 : miss.len), miss.data);
    sb_free(&miss);
    /* The stops that are not a plain snapshot first: what made the job end. */
    int shown = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->nstops && shown < top; i++) {
            const struct prof_stop *s = &p->stops[i];
            int snap = s->reason && !strcmp(s->reason, "snapshot");
            if (snap != pass)
                continue;
            shown++;
            sb_printf(out, "rank %-5d ", s->rank);
            if (s->signal)
                sb_printf(out, "%s (signal %d)", s->signal, s->code);
            else if (s->reason && !strcmp(s->reason, "abort"))
                sb_printf(out, "MPI_Abort(code %d)", s->code);
            else if (snap)
                sb_puts(out, "last snapshot");
            else
                sb_puts(out, s->reason ? s->reason : "?");
            sb_printf(out, " at %s, %.3f s after MPI_Init\n", s->time ? s->time : "?", s->wall);
            if (s->where && *s->where) {
                struct strbuf w;
                sb_init(&w);
                sb_puts(&w, s->where);
                for (char *f = strtok(w.data, ";"); f && out->len < 1 << 20; f = strtok(NULL, ";"))
                    sb_printf(out, "            at %s\n", f);
                sb_free(&w);
            }
        }
    if (shown < p->nstops)
        sb_printf(out, "(%d more ranks)\n", p->nstops - shown);
}

void summary_write(const struct profile *p, int top, struct strbuf *out)
{
    header(p, out);
    summary_partial(p, top, out);
    mpi_table(p, top, out);
    interval_table(p, top, out);
    rank_section(p, out);
    comm_section(p, out);
    wait_section(p, top, out);
    memory_section(p, top, out);
    counter_section(p, top, out);
    mpit_section(p, top, out);
    summary_predictions(p, out);
}
