/* Extra-P's data: the run store exported in its text format, and its data (read by
 * extrap_text.c and extrap_json.c) as runs. */
#include "predict.h"
#include "extrap_reader.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"

/* ---- export ------------------------------------------------------------------------------ */

static const char *param_of(const struct profile *p, const char *key)
{
    for (int i = 0; i < p->nparams; i++)
        if (!strcmp(p->params[i].key, key))
            return p->params[i].value;
    return NULL;
}

/* Value of parameter i (0 = p) of run r. */
static double coord(const struct profile *r, const char **names, int i)
{
    return i == 0 ? (double)r->ranks : atof(param_of(r, names[i]));
}

/* Rows of other kinds than call sites, intervals and per-rank metrics: region "KIND/A", or
 * "KIND/A => B" when the row has a second key (a pvar's class, the call site of an event or
 * a wait, the region that caused a wait), with backslash, newline and tab written \\, \n, \t. */
static const struct {
    int kind;
    const char *name;
} other_kinds[] = {{ROW_PVAR, "pvar"}, {ROW_EVENT, "event"}, {ROW_WAIT, "wait"},
                   {ROW_CAUSE, "cause"}};
#define NOTHER (sizeof other_kinds / sizeof other_kinds[0])

static const char *other_kind_name(int kind)
{
    for (size_t i = 0; i < NOTHER; i++)
        if (other_kinds[i].kind == kind)
            return other_kinds[i].name;
    return NULL;
}

static void put_escaped(struct strbuf *out, const char *s)
{
    for (; *s; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : NULL;
        if (esc)
            sb_puts(out, esc);
        else
            sb_add(out, s, 1);
    }
}

/* s with the escapes of put_escaped undone (a new string, NULL when out of memory). */
static char *unescaped(const char *s, size_t len)
{
    char *out = malloc(len + 1), *o = out;
    for (size_t i = 0; out && i < len; i++) {
        if (s[i] == '\\' && i + 1 < len && strchr("\\nt", s[i + 1])) {
            i++;
            *o++ = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : '\\';
        } else {
            *o++ = s[i];
        }
    }
    if (out)
        *o = '\0';
    return out;
}

/* Extra-P builds a call tree from "->" in region names: use "=>" for intervals. */
static void region_name(const struct prof_row *row, struct strbuf *out)
{
    const char *other = other_kind_name(row->kind);
    out->len = 0;
    if (row->kind == ROW_RANK) {
        sb_printf(out, "ranks/%s", row->a);
        return;
    }
    if (other) {
        sb_printf(out, "%s/", other);
        put_escaped(out, row->a);
    } else {
        sb_puts(out, row->a);
    }
    if (row->b) {
        sb_puts(out, " => ");
        if (other)
            put_escaped(out, row->b);
        else
            sb_puts(out, row->b);
    }
}

/* The metrics of a row in the file, by kind: a name and where the value lives in the row's
 * numbers (a per-rank total's mean over the ranks, or its maximum). extrap_read maps them back,
 * so a store exported and read again gives the same predictions. */
struct metric {
    const char *name;
    size_t off;   /* struct red_stat in struct prof_nums */
    int max;      /* the maximum over ranks, else the mean */
};

static const struct metric mpi_metrics[] = {
    {"time_mean", offsetof(struct prof_nums, time), 0},
    {"time_max", offsetof(struct prof_nums, time), 1},
    {"count_mean", offsetof(struct prof_nums, count), 0},
    {"sent_mean", offsetof(struct prof_nums, sent), 0},
    {"recv_mean", offsetof(struct prof_nums, recv), 0},
    {"memory_live_max", offsetof(struct prof_nums, mem_live), 1},
    {"memory_live_mean", offsetof(struct prof_nums, mem_live), 0},
    {NULL, 0, 0},
};
static const struct metric rank_metrics[] = {
    {"mean", offsetof(struct prof_nums, time), 0},
    {"max", offsetof(struct prof_nums, time), 1},
    {NULL, 0, 0},
};
/* Rows of other kinds: the mean and the maximum of every statistic (those some run has). */
#define BOTH(name, field)                                                                   \
    {name "_mean", offsetof(struct prof_nums, field), 0},                                   \
    {name "_max", offsetof(struct prof_nums, field), 1}
static const struct metric other_metrics[] = {
    BOTH("count", count), BOTH("time", time), BOTH("sent", sent), BOTH("recv", recv),
    BOTH("memory_allocs", mem_allocs), BOTH("memory_allocated", mem_alloc),
    BOTH("memory_freed", mem_freed), BOTH("memory_live", mem_live), BOTH("late", late),
    {NULL, 0, 0},
};
#undef BOTH

/* The metrics of a row kind (intervals: the first three of the MPI ones). */
static const struct metric *metrics_of(int kind, int *n)
{
    if (kind != ROW_MPI && kind != ROW_INTERVAL && kind != ROW_RANK) {
        *n = sizeof other_metrics / sizeof other_metrics[0] - 1;
        return other_metrics;
    }
    *n = kind == ROW_MPI ? 7 : kind == ROW_INTERVAL ? 3 : 2;
    return kind == ROW_RANK ? rank_metrics : mpi_metrics;
}

/* Written first for a row some runs lack: 1 in the runs that have it, 0 in the others. */
#define PRESENT "present"

/* Counters (TARDY_PAPI) of any row: metrics "counter_mean/EVENT" and "counter_max/EVENT". */
static const char *const counter_metrics[2] = {"counter_mean/", "counter_max/"};

/* The column of counter event in run r, or -1. */
static int counter_slot(const struct profile *r, const char *event)
{
    for (int i = 0; i < r->ncounters && i < PROF_COUNTERS; i++)
        if (r->counters[i] && !strcmp(r->counters[i], event))
            return i;
    return -1;
}

static struct red_stat *stat_at(struct prof_nums *n, const struct metric *m)
{
    return (struct red_stat *)((char *)n + m->off);
}

static double metric_value(const struct profile *r, const struct prof_row *row,
                           const struct metric *m)
{
    double n = r->ranks > 0 ? r->ranks : 1;
    if (!row)
        return 0;
    const struct red_stat *s = stat_at((struct prof_nums *)&row->n, m);
    return m->max ? s->max : s->sum / n;
}

/* Does some run have, in this row, counter event (when not NULL) or the statistic at off? */
static int has_stat(const struct profile *runs, int nruns, const struct prof_row *row,
                    long off, const char *event)
{
    for (int r = 0; r < nruns; r++) {
        const struct prof_row *mine = rowset_find(&runs[r].rows, row->kind, row->a, row->b);
        int slot = event ? counter_slot(&runs[r], event) : -1;
        if (mine && (event ? slot >= 0 && mine->n.ctr[slot].ranks
                           : ((const struct red_stat *)((const char *)&mine->n + off))->ranks))
            return 1;
    }
    return 0;
}

/* One DATA line per point: the value in each run at that point. */
static void write_data(const struct profile *runs, int nruns, const int *point, int npoints,
                       const struct prof_row *row, const struct metric *m, const char *event,
                       FILE *out)
{
    for (int k = 0; k < npoints; k++) {
        fputs("DATA", out);
        for (int r = 0; r < nruns; r++) {
            if (point[r] != k)
                continue;
            const struct prof_row *mine = rowset_find(&runs[r].rows, row->kind, row->a, row->b);
            struct metric c = *m;
            int slot = event ? counter_slot(&runs[r], event) : 0;
            if (event)
                c.off = offsetof(struct prof_nums, ctr) + (size_t)slot * sizeof(struct red_stat);
            fprintf(out, " %.17g", slot < 0 ? 0 : metric_value(&runs[r], mine, &c));
        }
        fputs("\n", out);
    }
}

/* One REGION with its metrics: the kind's, then the counters some run has in the row. */
static void write_region(const struct profile *runs, int nruns, const int *point, int npoints,
                         const struct prof_row *row, struct strbuf *name, FILE *out)
{
    region_name(row, name);
    fprintf(out, "REGION %s\n", name->data);
    int nm, other = other_kind_name(row->kind) != NULL, lacking = 0;
    const struct metric *metrics = metrics_of(row->kind, &nm);
    for (int r = 0; r < nruns && !lacking; r++)
        lacking = !rowset_find(&runs[r].rows, row->kind, row->a, row->b);
    if (lacking) { /* the runs without the row are left out of its series, as in the store */
        fprintf(out, "METRIC %s\n", PRESENT);
        for (int k = 0; k < npoints; k++) {
            fputs("DATA", out);
            for (int r = 0; r < nruns; r++)
                if (point[r] == k)
                    fputs(rowset_find(&runs[r].rows, row->kind, row->a, row->b) ? " 1" : " 0",
                          out);
            fputs("\n", out);
        }
    }
    for (int m = 0; m < nm; m++) {
        if ((other || metrics[m].off == offsetof(struct prof_nums, mem_live)) &&
            !has_stat(runs, nruns, row, (long)metrics[m].off, NULL))
            continue;
        fprintf(out, "METRIC %s\n", metrics[m].name);
        write_data(runs, nruns, point, npoints, row, &metrics[m], NULL, out);
    }
    for (int r = 0; r < nruns; r++) {
        for (int i = 0; i < runs[r].ncounters && i < PROF_COUNTERS; i++) {
            const char *event = runs[r].counters[i];
            int first = 1; /* written for the first run that has the event */
            for (int q = 0; q < r && first; q++)
                first = counter_slot(&runs[q], event) < 0;
            if (!event || !first || !has_stat(runs, nruns, row, -1, event))
                continue;
            for (int max = 0; max < 2; max++) {
                struct metric c = {NULL, 0, max};
                fprintf(out, "METRIC %s%s\n", counter_metrics[max], event);
                write_data(runs, nruns, point, npoints, row, &c, event, out);
            }
        }
    }
}

int extrap_write(const struct profile *runs, int nruns, FILE *out)
{
    if (nruns <= 0)
        return 0;
    /* Parameters: p, then user parameters every run has. */
    const char *names[16] = {"p"};
    int np = 1;
    for (int i = 0; i < runs[0].nparams && np < 16; i++) {
        int everywhere = 1;
        for (int r = 1; r < nruns; r++)
            everywhere &= param_of(&runs[r], runs[0].params[i].key) != NULL;
        if (everywhere)
            names[np++] = runs[0].params[i].key;
    }
    /* Points: distinct tuples, in first-seen order; point[r] = index of run r's point. */
    int *point = calloc((size_t)nruns, sizeof *point), npoints = 0;
    int *first = calloc((size_t)nruns, sizeof *first);
    for (int r = 0; point && first && r < nruns; r++) {
        point[r] = -1;
        for (int k = 0; k < npoints && point[r] < 0; k++) {
            int same = 1;
            for (int i = 0; i < np; i++)
                same &= coord(&runs[r], names, i) == coord(&runs[first[k]], names, i);
            if (same)
                point[r] = k;
        }
        if (point[r] < 0) {
            first[npoints] = r;
            point[r] = npoints++;
        }
    }
    fputs("PARAMETER", out);
    for (int i = 0; i < np; i++)
        fprintf(out, " %s", names[i]);
    fputs("\nPOINTS", out);
    for (int k = 0; k < npoints; k++) {
        fputs(np > 1 ? " (" : " ", out);
        for (int i = 0; i < np; i++)
            fprintf(out, i ? " %.17g" : "%.17g", coord(&runs[first[k]], names, i));
        if (np > 1)
            fputs(")", out);
    }
    fputs("\n", out);
    int regions = 0;
    struct strbuf name;
    sb_init(&name);
    /* Regions: the rows of every run, each once (a run without a row counts 0 there). */
    struct rowset seen;
    rowset_init(&seen);
    for (int q = nruns - 1; q >= 0; q--) {
        for (size_t i = 0; i < runs[q].rows.n; i++) {
            const struct prof_row *row = &runs[q].rows.rows[i];
            if (row->kind != ROW_MPI && row->kind != ROW_INTERVAL && row->kind != ROW_RANK &&
                !other_kind_name(row->kind))
                continue;
            if (rowset_find(&seen, row->kind, row->a, row->b) ||
                !rowset_get(&seen, row->kind, row->a, row->b))
                continue;
            write_region(runs, nruns, point, npoints, row, &name, out);
            regions++;
        }
    }
    rowset_free(&seen);
    sb_free(&name);
    free(point);
    free(first);
    return regions;
}

/* ---- import: Extra-P data as runs (the parsers: extrap_text.c, extrap_json.c) ------------ */

int extrap_fail(struct extrap_reader *rd, const char *what)
{
    if (rd->line)
        snprintf(rd->err, rd->errlen, "%s:%d: %s", rd->path, rd->line, what);
    else
        snprintf(rd->err, rd->errlen, "%s: %s", rd->path, what);
    return -1;
}

int extrap_lines(struct extrap_reader *rd, FILE *f, int (*fn)(void *ctx, char *line), void *ctx)
{
    char line[65536];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        rd->line++;
        if (!strchr(line, '\n') && !feof(f))
            rc = extrap_fail(rd, "line longer than 65535 characters");
        else
            rc = fn(ctx, line);
    }
    return rc;
}

int extrap_add_param(struct extrap_reader *rd, const char *name)
{
    if (rd->npoints)
        return extrap_fail(rd, "a parameter after the points");
    if (rd->nparams == EXTRAP_MAX_PARAMS)
        return extrap_fail(rd, "more than 8 parameters");
    for (int i = 0; i < rd->nparams; i++)
        if (!strcmp(rd->params[i], name))
            return extrap_fail(rd, "a parameter named twice");
    if (!(rd->params[rd->nparams] = strdup(name)))
        return extrap_fail(rd, "out of memory");
    rd->nparams++;
    return 0;
}

int extrap_check_point(struct extrap_reader *rd, const double *v)
{
    for (int i = 0; i < rd->nparams; i++) {
        if (!isfinite(v[i]))
            return extrap_fail(rd, "a point has a value that is not a finite number");
        if (!strcmp(rd->params[i], "p") && !(v[i] >= 1 && v[i] <= 1e9 && v[i] == floor(v[i]))) {
            char what[96];
            snprintf(what, sizeof what, "p = %g is not a rank count (1, 2, ...)", v[i]);
            return extrap_fail(rd, what);
        }
    }
    return 0;
}

int extrap_add_point(struct extrap_reader *rd, const double *v)
{
    if (rd->nreps)
        return extrap_fail(rd, "a point after the data");
    if (extrap_check_point(rd, v) < 0)
        return -1;
    double *more = realloc(rd->points, (size_t)(rd->npoints + 1) * rd->nparams * sizeof *more);
    if (!more)
        return extrap_fail(rd, "out of memory");
    rd->points = more;
    memcpy(&rd->points[rd->npoints * rd->nparams], v, (size_t)rd->nparams * sizeof *v);
    return rd->npoints++;
}

/* Add the block of repetition nreps: a run per point, with its parameters. */
static int add_repetition(struct extrap_reader *rd)
{
    struct extrap_repetition *more = realloc(rd->reps, (size_t)(rd->nreps + 1) * sizeof *more);
    if (!more)
        return extrap_fail(rd, "out of memory");
    rd->reps = more;
    struct extrap_repetition *b = &rd->reps[rd->nreps];
    b->runs = calloc((size_t)rd->npoints, sizeof *b->runs);
    b->absent = calloc((size_t)rd->npoints, 1);
    if (!b->runs || !b->absent) {
        free(b->runs);
        free(b->absent);
        return extrap_fail(rd, "out of memory");
    }
    rd->nreps++;
    for (int k = 0; k < rd->npoints; k++) {
        struct profile *r = &b->runs[k];
        profile_init(r);
        r->program = strdup(rd->path);
        r->ranks = 1;
        r->ranks_unknown = 1;
        struct strbuf params;
        sb_init(&params);
        for (int i = 0; i < rd->nparams; i++) {
            double v = rd->points[k * rd->nparams + i];
            if (!strcmp(rd->params[i], "p")) {
                r->ranks = (int)v;
                r->ranks_unknown = 0;
            } else
                sb_printf(&params, "%s%s=%.17g", params.len ? "," : "", rd->params[i], v);
        }
        char err[128];
        profile_set_params(r, params.data ? params.data : "", err, sizeof err);
        sb_free(&params);
    }
    return 0;
}

/* The row kind of a region written by extrap_write, and where its first key starts; 0 for
 * a region of another tool. */
static int region_kind(const char *region, const char **a)
{
    *a = region;
    for (size_t i = 0; i < NOTHER; i++) {
        size_t len = strlen(other_kinds[i].name);
        if (!strncmp(region, other_kinds[i].name, len) && region[len] == '/') {
            *a = region + len + 1;
            return other_kinds[i].kind;
        }
    }
    if (!strncmp(region, "ranks/", 6)) {
        *a = region + 6;
        return ROW_RANK;
    }
    return strstr(region, " => ") ? ROW_INTERVAL : strchr(region, '@') ? ROW_MPI : 0;
}

/* The column of counter event in run r, added when the run does not have it yet; -1 when
 * all columns are taken. */
static int counter_column(struct profile *r, const char *event)
{
    int slot = counter_slot(r, event);
    if (slot >= 0 || r->ncounters >= PROF_COUNTERS)
        return slot;
    r->counters[r->ncounters] = strdup(event);
    return r->counters[r->ncounters] ? r->ncounters++ : -1;
}

/* Where a region/metric pair goes in a run: back into the row and statistic (or counter) it
 * was exported from (regions "ranks/NAME", "pvar/NAME => CLASS", "event/EVENT => SITE",
 * "SITE => SITE" and call sites "MPI_X@..." with tardy's metric names); anything else (also
 * a counter beyond the run's PROF_COUNTERS columns) becomes the per-rank metric
 * "region/metric". -1 when out of memory, 1 when that metric was placed already. */
static int place(struct profile *r, const char *region, const char *metric, double v)
{
    const char *a;
    int kind = region_kind(region, &a);
    int nm = 0, slot;
    const struct metric *ms = kind ? metrics_of(kind, &nm) : NULL, *m = NULL;
    struct metric counter = {NULL, 0, 0};
    for (int i = 0; i < nm && !m; i++)
        if (!strcmp(ms[i].name, metric))
            m = &ms[i];
    for (int max = 0; kind && max < 2 && !m; max++) {
        size_t len = strlen(counter_metrics[max]);
        if (!strncmp(metric, counter_metrics[max], len) && metric[len] &&
            (slot = counter_column(r, metric + len)) >= 0) {
            counter = (struct metric){NULL, offsetof(struct prof_nums, ctr) +
                                                (size_t)slot * sizeof(struct red_stat), max};
            m = &counter;
        }
    }
    struct prof_row *row;
    const char *arrow = strstr(a, " => ");
    if (m && kind != ROW_MPI && kind != ROW_INTERVAL && kind != ROW_RANK) {
        char *first = unescaped(a, arrow ? (size_t)(arrow - a) : strlen(a));
        char *second = arrow ? unescaped(arrow + 4, strlen(arrow + 4)) : NULL;
        row = first && (second || !arrow) ? rowset_get(&r->rows, kind, first, second) : NULL;
        free(first);
        free(second);
    } else if (m && arrow && kind == ROW_INTERVAL) {
        char *first = strndup(a, (size_t)(arrow - a));
        row = first ? rowset_get(&r->rows, kind, first, arrow + 4) : NULL;
        free(first);
    } else if (m) {
        row = rowset_get(&r->rows, kind, a, NULL);
    } else {
        char *key;
        if (asprintf(&key, "%s/%s", region, metric) < 0)
            return -1;
        row = rowset_get(&r->rows, ROW_RANK, key, NULL);
        free(key);
        if (!row)
            return -1;
        if (row->n.time.ranks) /* a second block of the pair: it would replace the first's */
            return 1;
        row->n.time = (struct red_stat){.sum = v * r->ranks, .min = v, .max = v,
                                        .ranks = (uint32_t)r->ranks};
        return 0;
    }
    if (!row)
        return -1;
    struct red_stat *s = stat_at(&row->n, m);
    s->ranks = (uint32_t)r->ranks;
    if (m->max)
        s->max = v;
    else
        s->sum = v * r->ranks;
    return 0;
}

int extrap_region(struct extrap_reader *rd, const char *region, const char *metric)
{
    char **slot = region ? &rd->region : &rd->metric, *v = strdup(region ? region : metric);
    if (!v)
        return extrap_fail(rd, "out of memory");
    free(*slot);
    *slot = v;
    for (int j = 0; region && j < rd->nreps; j++)
        memset(rd->reps[j].absent, 0, (size_t)rd->npoints);
    return 0;
}

int extrap_values(struct extrap_reader *rd, int point, const double *vals, int n)
{
    if (!rd->nreps && add_repetition(rd) < 0)
        return -1;
    for (int j = 0; j < n; j++)
        if (!isfinite(vals[j]))
            return extrap_fail(rd, "a value that is not a finite number");
    while (rd->nreps < n)
        if (add_repetition(rd) < 0)
            return -1;
    /* each value is a run of its own: the policies take the median of a scale's runs and
     * tell a trend from the noise between them */
    const char *a;
    int tardys = region_kind(rd->region, &a) != 0;
    for (int j = 0; j < n; j++) {
        struct extrap_repetition *b = &rd->reps[j];
        if (tardys && !strcmp(rd->metric, PRESENT))
            b->absent[point] = vals[j] == 0;
        else if (!(tardys && b->absent[point])) {
            int rc = place(&b->runs[point], rd->region, rd->metric, vals[j]);
            if (rc > 0) {
                char what[600];
                snprintf(what, sizeof what, "REGION %.200s with METRIC %.200s a second time "
                         "(one block each; a point's repetitions go on its DATA line)",
                         rd->region, rd->metric);
                return extrap_fail(rd, what);
            }
            if (rc < 0)
                return extrap_fail(rd, "out of memory");
        }
    }
    return 0;
}

int extrap_finish(struct extrap_reader *rd, int rc, struct profile **runs)
{
    *runs = NULL;
    if (rc == 0 && !rd->nreps) {
        rd->line = 0;
        rc = extrap_fail(rd, "no data");
    }
    for (int i = 0; i < rd->nparams; i++)
        free(rd->params[i]);
    free(rd->points);
    free(rd->region);
    free(rd->metric);
    /* the runs, repetition by repetition; a later repetition's run without a row (its point
     * has fewer values than another) is no run */
    int n = 0;
    struct profile *out = rc == 0 ? calloc((size_t)rd->nreps * rd->npoints, sizeof *out) : NULL;
    if (rc == 0 && !out)
        rc = extrap_fail(rd, "out of memory");
    for (int j = 0; j < rd->nreps; j++) {
        for (int k = 0; k < rd->npoints; k++) {
            struct profile *r = &rd->reps[j].runs[k];
            if (rc == 0 && (j == 0 || r->rows.n))
                out[n++] = *r;
            else
                profile_free(r);
        }
        free(rd->reps[j].runs);
        free(rd->reps[j].absent);
    }
    free(rd->reps);
    if (rc < 0) {
        store_free(out, n);
        return -1;
    }
    *runs = out;
    return n;
}
