/* Extra-P text format: export of the run store and import as runs. */
#include "extrap.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

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

/* Extra-P builds a call tree from "->" in region names: use "=>" for intervals. */
static void region_name(const struct prof_row *row, struct strbuf *out)
{
    out->len = 0;
    if (row->kind == ROW_RANK) {
        sb_printf(out, "ranks/%s", row->a);
        return;
    }
    sb_puts(out, row->a);
    if (row->b) {
        sb_puts(out, " => ");
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

/* The metrics of a row kind (intervals: the first three of the MPI ones). */
static const struct metric *metrics_of(int kind, int *n)
{
    *n = kind == ROW_MPI ? 7 : kind == ROW_INTERVAL ? 3 : 2;
    return kind == ROW_RANK ? rank_metrics : mpi_metrics;
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

/* Did some run record memory at this call site? */
static int has_memory(const struct profile *runs, int nruns, const struct prof_row *row)
{
    for (int r = 0; r < nruns; r++) {
        const struct prof_row *mine = rowset_find(&runs[r].rows, row->kind, row->a, row->b);
        if (mine && mine->n.mem_live.ranks)
            return 1;
    }
    return 0;
}

/* One REGION with its metrics, a DATA line per point holding the runs at that point. */
static void write_region(const struct profile *runs, int nruns, const int *point, int npoints,
                         const struct prof_row *row, struct strbuf *name, FILE *out)
{
    region_name(row, name);
    fprintf(out, "REGION %s\n", name->data);
    int nm;
    const struct metric *metrics = metrics_of(row->kind, &nm);
    for (int m = 0; m < nm; m++) {
        if (metrics[m].off == offsetof(struct prof_nums, mem_live) &&
            !has_memory(runs, nruns, row))
            continue;
        fprintf(out, "METRIC %s\n", metrics[m].name);
        for (int k = 0; k < npoints; k++) {
            fputs("DATA", out);
            for (int r = 0; r < nruns; r++) {
                if (point[r] != k)
                    continue;
                const struct prof_row *mine = rowset_find(&runs[r].rows, row->kind, row->a,
                                                          row->b);
                fprintf(out, " %.17g", metric_value(&runs[r], mine, &metrics[m]));
            }
            fputs("\n", out);
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
            if (row->kind != ROW_MPI && row->kind != ROW_INTERVAL && row->kind != ROW_RANK)
                continue; /* MPI_T variables and events: no scaling metric of the run */
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

/* ---- import ------------------------------------------------------------------------------ */

struct reader {
    const char *path;
    int line;
    char *err;
    size_t errlen;
    char *params[8];
    int nparams;
    double *points;   /* npoints × nparams */
    int npoints, point;
    char *region, *metric;
    struct profile *runs;
};

static int fail(struct reader *rd, const char *what)
{
    snprintf(rd->err, rd->errlen, "%s:%d: %s", rd->path, rd->line, what);
    return -1;
}

static int read_points(struct reader *rd, char *s)
{
    for (char *tok = strtok(s, " ()"); tok; tok = strtok(NULL, " ()")) {
        char *end;
        double v = strtod(tok, &end);
        if (*end || !isfinite(v))
            return fail(rd, "POINTS holds something that is not a number");
        double *more = realloc(rd->points, (size_t)(rd->npoints + 1) * rd->nparams * sizeof *more);
        if (!more)
            return fail(rd, "out of memory");
        rd->points = more;
        rd->points[rd->npoints * rd->nparams + (rd->point++ % rd->nparams)] = v;
        if (rd->point % rd->nparams == 0)
            rd->npoints++;
    }
    if (rd->point % rd->nparams)
        return fail(rd, "a point has fewer coordinates than there are parameters");
    rd->point = 0;
    return 0;
}

static int make_runs(struct reader *rd)
{
    rd->runs = calloc((size_t)rd->npoints, sizeof *rd->runs);
    if (!rd->runs)
        return fail(rd, "out of memory");
    for (int k = 0; k < rd->npoints; k++) {
        struct profile *r = &rd->runs[k];
        profile_init(r);
        r->program = strdup(rd->path);
        r->ranks = 1;
        struct strbuf params;
        sb_init(&params);
        for (int i = 0; i < rd->nparams; i++) {
            double v = rd->points[k * rd->nparams + i];
            if (!strcmp(rd->params[i], "p"))
                r->ranks = (int)v;
            else
                sb_printf(&params, "%s%s=%.17g", params.len ? "," : "", rd->params[i], v);
        }
        char err[128];
        profile_set_params(r, params.data ? params.data : "", err, sizeof err);
        sb_free(&params);
    }
    return 0;
}

/* Where a region/metric pair goes in a run: back into the row and statistic it was exported
 * from (regions "ranks/NAME", "SITE => SITE" and call sites "MPI_X@..." with tardy's metric
 * names); anything else becomes the per-rank metric "region/metric". */
static int place(struct profile *r, const char *region, const char *metric, double v)
{
    int kind = !strncmp(region, "ranks/", 6) ? ROW_RANK
               : strstr(region, " => ")       ? ROW_INTERVAL
               : strchr(region, '@')          ? ROW_MPI
                                              : 0;
    int nm = 0;
    const struct metric *ms = kind ? metrics_of(kind, &nm) : NULL, *m = NULL;
    for (int i = 0; i < nm && !m; i++)
        if (!strcmp(ms[i].name, metric))
            m = &ms[i];
    struct prof_row *row;
    if (m && kind == ROW_INTERVAL) {
        const char *arrow = strstr(region, " => ");
        char *a = strndup(region, (size_t)(arrow - region));
        row = a ? rowset_get(&r->rows, kind, a, arrow + 4) : NULL;
        free(a);
    } else if (m) {
        row = rowset_get(&r->rows, kind, kind == ROW_RANK ? region + 6 : region, NULL);
    } else {
        char key[1024];
        snprintf(key, sizeof key, "%s/%s", region, metric);
        row = rowset_get(&r->rows, ROW_RANK, key, NULL);
        if (!row)
            return -1;
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

static int read_data(struct reader *rd, char *s)
{
    if (!rd->region || !rd->metric)
        return fail(rd, "DATA before REGION and METRIC");
    if (!rd->runs && make_runs(rd) < 0)
        return -1;
    if (rd->point >= rd->npoints)
        return fail(rd, "more DATA lines than POINTS");
    double sum = 0;
    int n = 0;
    for (char *tok = strtok(s, " "); tok; tok = strtok(NULL, " ")) {
        char *end;
        double v = strtod(tok, &end);
        if (*end || !isfinite(v))
            return fail(rd, "DATA holds something that is not a number");
        sum += v;
        n++;
    }
    if (!n)
        return fail(rd, "DATA without values");
    if (place(&rd->runs[rd->point++], rd->region, rd->metric, sum / n) < 0)
        return fail(rd, "out of memory");
    return 0;
}

static int read_line(struct reader *rd, char *line)
{
    line[strcspn(line, "\r\n")] = '\0';
    char *s = line + strspn(line, " \t");
    if (!*s || *s == '#')
        return 0;
    char *value = s + strcspn(s, " \t");
    if (*value)
        *value++ = '\0';
    value += strspn(value, " \t");
    if (!strcmp(s, "PARAMETER")) {
        for (char *tok = strtok(value, " \t"); tok && rd->nparams < 8; tok = strtok(NULL, " \t"))
            rd->params[rd->nparams++] = strdup(tok);
        return 0;
    }
    if (!strcmp(s, "POINTS"))
        return rd->nparams ? read_points(rd, value) : fail(rd, "POINTS before PARAMETER");
    if (!strcmp(s, "REGION") || !strcmp(s, "METRIC")) {
        char **slot = s[0] == 'R' ? &rd->region : &rd->metric;
        free(*slot);
        *slot = strdup(value);
        rd->point = 0;
        return 0;
    }
    if (!strcmp(s, "DATA"))
        return read_data(rd, value);
    return fail(rd, "unknown field (expected PARAMETER, POINTS, REGION, METRIC or DATA)");
}

int extrap_read(const char *path, struct profile **runs, char *err, size_t errlen)
{
    struct reader rd = {.path = path, .err = err, .errlen = errlen};
    FILE *f = fopen(path, "r");
    *runs = NULL;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    char line[65536];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        rd.line++;
        rc = read_line(&rd, line);
    }
    fclose(f);
    if (rc == 0 && !rd.runs) {
        rd.line = 0;
        rc = fail(&rd, "no DATA");
    }
    for (int i = 0; i < rd.nparams; i++)
        free(rd.params[i]);
    free(rd.points);
    free(rd.region);
    free(rd.metric);
    if (rc < 0) {
        for (int k = 0; rd.runs && k < rd.npoints; k++)
            profile_free(&rd.runs[k]);
        free(rd.runs);
        return -1;
    }
    *runs = rd.runs;
    return rd.npoints;
}
