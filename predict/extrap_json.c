/* Extra-P's JSON inputs: its own layout ({"parameters": [...], "measurements": {CALLPATH:
 * {METRIC: [{"point": [...], "values": [...]}]}}}), the legacy one with ids ("parameters",
 * "callpaths", "metrics", "coordinates", "measurements"), and JSON Lines (one measurement a
 * line: {"params": {...}, "callpath": ..., "metric": ..., "value": v or [v, ...]}; Talpas's
 * lines are the same with "parameters" and ';' for ','), as Extra-P 4.2.5's readers take them
 * (extrap/fileio/file_reader/). Measurements are gathered first: the reader needs every point
 * before the first value. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extrap_reader.h"

/* One value: of series `series` at point `point`, the order-th read (repetitions keep it). */
struct entry {
    int series, point, order;
    double v;
};

struct gather {
    struct extrap_reader *rd;
    json_t *series_index, *point_index; /* key -> index */
    char **series; /* "callpath\0metric", by index */
    int nseries;
    double *coords; /* npoints × nparams */
    int npoints;
    struct entry *entries;
    int nentries, cap;
};

/* A number, or a string holding one (the legacy layout's values may be either). */
static int number_of(const json_t *j, double *v)
{
    if (json_is_number(j)) {
        *v = json_number_value(j);
        return 0;
    }
    if (json_is_string(j))
        return decimal_number(json_string_value(j), v) ? 0 : -1;
    return -1;
}

static int series_of(struct gather *g, const char *callpath, const char *metric)
{
    size_t lc = strlen(callpath), lm = strlen(metric);
    char *key = malloc(lc + lm + 2);
    if (!key)
        return extrap_fail(g->rd, "out of memory");
    memcpy(key, callpath, lc);
    key[lc] = '\x1f'; /* the index's key; the series keeps callpath\0metric */
    memcpy(key + lc + 1, metric, lm + 1);
    json_t *at = json_object_get(g->series_index, key);
    if (at) {
        free(key);
        return (int)json_integer_value(at);
    }
    char **more = realloc(g->series, (size_t)(g->nseries + 1) * sizeof *more);
    if (!more || json_object_set_new(g->series_index, key, json_integer(g->nseries)) < 0) {
        if (more)
            g->series = more;
        free(key);
        return extrap_fail(g->rd, "out of memory");
    }
    g->series = more;
    key[lc] = '\0';
    g->series[g->nseries] = key;
    return g->nseries++;
}

static int point_of(struct gather *g, const double *v)
{
    int np = g->rd->nparams;
    char key[EXTRAP_MAX_PARAMS * 26 + 1];
    size_t len = 0;
    for (int i = 0; i < np; i++)
        len += (size_t)snprintf(key + len, sizeof key - len, "%.17g,", v[i]);
    json_t *at = json_object_get(g->point_index, key);
    if (at)
        return (int)json_integer_value(at);
    if (extrap_check_point(g->rd, v) < 0)
        return -1;
    double *more = realloc(g->coords, (size_t)(g->npoints + 1) * np * sizeof *more);
    if (!more)
        return extrap_fail(g->rd, "out of memory");
    g->coords = more;
    memcpy(&g->coords[g->npoints * np], v, (size_t)np * sizeof *v);
    if (json_object_set_new(g->point_index, key, json_integer(g->npoints)) < 0)
        return extrap_fail(g->rd, "out of memory");
    return g->npoints++;
}

static int add_entry(struct gather *g, int series, int point, double v)
{
    if (g->nentries == g->cap) {
        int cap = g->cap ? 2 * g->cap : 256;
        struct entry *more = realloc(g->entries, (size_t)cap * sizeof *more);
        if (!more)
            return extrap_fail(g->rd, "out of memory");
        g->entries = more;
        g->cap = cap;
    }
    g->entries[g->nentries] = (struct entry){series, point, g->nentries, v};
    g->nentries++;
    return 0;
}

/* What went wrong in series `series` (-1: none): the line says where in JSON Lines, the call
 * path and metric in a document. */
static int fail_in(struct gather *g, int series, const char *what)
{
    if (g->rd->line || series < 0)
        return extrap_fail(g->rd, what);
    char msg[512];
    const char *callpath = g->series[series];
    snprintf(msg, sizeof msg, "%s (call path %.200s, metric %.200s)", what, callpath,
             callpath + strlen(callpath) + 1);
    return extrap_fail(g->rd, msg);
}

/* Values (a number or an array of them) of a series at a point. */
static int add_values(struct gather *g, int series, int point, const json_t *values)
{
    double v;
    if (series < 0 || point < 0)
        return -1;
    if (!json_is_array(values))
        return number_of(values, &v) < 0 ? fail_in(g, series, "a value that is not a number")
                                         : add_entry(g, series, point, v);
    size_t i;
    const json_t *x;
    json_array_foreach(values, i, x) {
        if (number_of(x, &v) < 0)
            return fail_in(g, series, "a value that is not a number");
        if (add_entry(g, series, point, v) < 0)
            return -1;
    }
    return 0;
}

/* A point of series: an array of one number per parameter, or one number for one
 * parameter. */
static int point_at(struct gather *g, int series, const json_t *j)
{
    double v[EXTRAP_MAX_PARAMS];
    int np = g->rd->nparams;
    if (np == 1 && !json_is_array(j) && number_of(j, &v[0]) == 0)
        return point_of(g, v);
    if (!json_is_array(j) || (int)json_array_size(j) != np)
        return fail_in(g, series, "a \"point\" without one number per parameter");
    for (int i = 0; i < np; i++)
        if (number_of(json_array_get(j, (size_t)i), &v[i]) < 0)
            return fail_in(g, series, "a \"point\" without one number per parameter");
    return point_of(g, v);
}

static const char *string_or(const json_t *j, const char *dflt)
{
    return json_is_string(j) ? json_string_value(j) : j ? NULL : dflt;
}

static int read_layout(struct gather *g, const json_t *doc)
{
    const json_t *params = json_object_get(doc, "parameters"), *p;
    const json_t *meas = json_object_get(doc, "measurements");
    size_t i;
    if (!json_is_array(params) || !json_is_object(meas))
        return extrap_fail(g->rd, "no \"parameters\" array and \"measurements\" object");
    json_array_foreach(params, i, p) {
        if (!json_is_string(p))
            return extrap_fail(g->rd, "a parameter that is not a string");
        if (extrap_add_param(g->rd, json_string_value(p)) < 0)
            return -1;
    }
    const char *callpath, *metric;
    const json_t *metrics, *list, *m;
    json_object_foreach((json_t *)meas, callpath, metrics) {
        if (!json_is_object(metrics))
            return extrap_fail(g->rd, "a call path whose measurements are not an object");
        json_object_foreach((json_t *)metrics, metric, list) {
            int s = series_of(g, callpath, metric);
            if (s < 0)
                return -1;
            if (!json_is_array(list))
                return fail_in(g, s, "measurements that are not an array");
            json_array_foreach(list, i, m) {
                const json_t *values = json_object_get(m, "values");
                if (!values)
                    return fail_in(g, s, "a measurement without \"values\"");
                if (add_values(g, s, point_at(g, s, json_object_get(m, "point")), values) < 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* The elements of a legacy list by their "id" (a JSON object keyed by the id's text), or NULL
 * when an element has no number "id". */
static json_t *index_by_id(const json_t *list)
{
    json_t *index = json_object(), *x;
    size_t i;
    double id;
    json_array_foreach(list, i, x) {
        char key[32];
        if (!index || number_of(json_object_get(x, "id"), &id) < 0)
            break;
        snprintf(key, sizeof key, "%.17g", id);
        json_object_set(index, key, x);
    }
    if (index && i < json_array_size(list)) {
        json_decref(index);
        return NULL;
    }
    return index;
}

static const json_t *by_id(const json_t *index, const json_t *id)
{
    double v;
    char key[32];
    if (number_of(id, &v) < 0)
        return NULL;
    snprintf(key, sizeof key, "%.17g", v);
    return json_object_get(index, key);
}

static int by_number_id(const void *a, const void *b)
{
    double x = 0, y = 0;
    number_of(json_object_get(*(json_t *const *)a, "id"), &x);
    number_of(json_object_get(*(json_t *const *)b, "id"), &y);
    return (x > y) - (x < y);
}

/* The legacy layout's measurements: one value each, a repetition per measurement of the
 * same coordinate, call path and metric. */
static int legacy_measurements(struct gather *g, json_t **index, const json_t *list)
{
    size_t i, j;
    const json_t *x, *pv;
    json_array_foreach(list, i, x) {
        const char *callpath =
            string_or(json_object_get(by_id(index[1], json_object_get(x, "callpath_id")), "name"),
                      NULL);
        const char *metric =
            string_or(json_object_get(by_id(index[2], json_object_get(x, "metric_id")), "name"),
                      NULL);
        const json_t *pairs = json_object_get(by_id(index[3], json_object_get(x, "coordinate_id")),
                                              "parameter_value_pairs");
        if (!callpath || !metric || !json_is_array(pairs))
            return extrap_fail(g->rd, "a measurement whose callpath_id, metric_id or "
                                      "coordinate_id names nothing");
        double v[EXTRAP_MAX_PARAMS];
        int have = 0;
        json_array_foreach(pairs, j, pv) {
            const char *name = string_or(
                json_object_get(by_id(index[0], json_object_get(pv, "parameter_id")), "name"), "");
            for (int d = 0; d < g->rd->nparams; d++)
                if (!strcmp(name, g->rd->params[d]) &&
                    number_of(json_object_get(pv, "parameter_value"), &v[d]) == 0)
                    have |= 1 << d;
        }
        if (have != (1 << g->rd->nparams) - 1)
            return extrap_fail(g->rd, "a coordinate without a value of every parameter");
        if (add_values(g, series_of(g, callpath, metric), point_of(g, v),
                       json_object_get(x, "value")) < 0)
            return -1;
    }
    return 0;
}

static int read_legacy(struct gather *g, const json_t *doc)
{
    static const char *const names[] = {"parameters", "callpaths", "metrics", "coordinates"};
    json_t *index[4] = {NULL};
    const json_t *measurements = json_object_get(doc, "measurements");
    int rc = json_is_array(measurements) ? 0 : extrap_fail(g->rd, "no \"measurements\" array");
    for (int k = 0; rc == 0 && k < 4; k++) {
        const json_t *list = json_object_get(doc, names[k]);
        if (!json_is_array(list) || !(index[k] = index_by_id(list))) {
            char what[80];
            snprintf(what, sizeof what, "no \"%s\" array of elements with a number \"id\"",
                     names[k]);
            rc = extrap_fail(g->rd, what);
        }
    }
    /* the parameters in the order of their ids, as Extra-P sorts them */
    const json_t *params = json_object_get(doc, "parameters");
    size_t n = rc == 0 ? json_array_size(params) : 0;
    json_t **sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (rc == 0 && !sorted)
        rc = extrap_fail(g->rd, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++)
        sorted[i] = json_array_get(params, i);
    if (rc == 0)
        qsort(sorted, n, sizeof *sorted, by_number_id);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *name = string_or(json_object_get(sorted[i], "name"), NULL);
        rc = name ? extrap_add_param(g->rd, name)
                  : extrap_fail(g->rd, "a parameter without a \"name\"");
    }
    if (rc == 0)
        rc = legacy_measurements(g, index, measurements);
    free(sorted);
    for (int k = 0; k < 4; k++)
        json_decref(index[k]);
    return rc;
}

/* One line of JSON Lines or Talpas: parameters in the order of the first line's. */
static int read_line(struct gather *g, const json_t *o)
{
    const json_t *params = json_object_get(o, "params");
    if (!params)
        params = json_object_get(o, "parameters");
    const char *key;
    const json_t *x;
    if (!json_is_object(params) || !json_object_size(params))
        return extrap_fail(g->rd, "no \"params\" object");
    if (!g->rd->nparams)
        json_object_foreach((json_t *)params, key, x)
            if (extrap_add_param(g->rd, key) < 0)
                return -1;
    double v[EXTRAP_MAX_PARAMS];
    for (int d = 0; d < g->rd->nparams; d++)
        if (number_of(json_object_get(params, g->rd->params[d]), &v[d]) < 0) {
            char what[160];
            snprintf(what, sizeof what, "no number for the parameter %.64s", g->rd->params[d]);
            return extrap_fail(g->rd, what);
        }
    if (json_object_size(params) != (size_t)g->rd->nparams)
        return extrap_fail(g->rd, "other parameters than the first line's");
    const char *callpath = string_or(json_object_get(o, "callpath"), "<root>");
    const char *metric = string_or(json_object_get(o, "metric"), "<default>");
    const json_t *value = json_object_get(o, "value");
    if (!callpath || !metric)
        return extrap_fail(g->rd, "a \"callpath\" or \"metric\" that is not a string");
    if (!value)
        return extrap_fail(g->rd, "no \"value\"");
    return add_values(g, series_of(g, callpath, metric), point_of(g, v), value);
}

/* One line of JSON Lines or Talpas as text (extrap_lines). */
static int read_text_line(void *ctx, char *line)
{
    struct gather *g = ctx;
    if (strspn(line, " \t\r\n") == strlen(line))
        return 0;
    json_error_t e;
    json_t *o = json_loads(line, JSON_DECODE_ANY, &e);
    for (char *c = line; !o && (c = strchr(c, ';')); c++) /* Talpas */
        *c = ',';
    if (!o)
        o = json_loads(line, JSON_DECODE_ANY, &e);
    if (!json_is_object(o)) {
        json_decref(o);
        char what[256];
        snprintf(what, sizeof what, "not a JSON object (%s)", e.text);
        return extrap_fail(g->rd, what);
    }
    int rc = read_line(g, o);
    json_decref(o);
    return rc < 0 ? -1 : 0;
}

static int by_series_point(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return x->series != y->series ? x->series - y->series
           : x->point != y->point ? x->point - y->point
                                  : x->order - y->order;
}

/* The gathered measurements to the reader: the points, then each series point by point. */
static int emit(struct gather *g)
{
    struct extrap_reader *rd = g->rd;
    rd->line = 0;
    for (int k = 0; k < g->npoints; k++)
        if (extrap_add_point(rd, &g->coords[k * rd->nparams]) < 0)
            return -1;
    if (!g->nentries)
        return 0; /* extrap_finish: no data */
    qsort(g->entries, (size_t)g->nentries, sizeof *g->entries, by_series_point);
    double *vals = malloc((size_t)g->nentries * sizeof *vals);
    if (!vals)
        return extrap_fail(rd, "out of memory");
    int rc = 0;
    for (int i = 0, j; rc == 0 && i < g->nentries; i = j) {
        const struct entry *e = &g->entries[i];
        const char *callpath = g->series[e->series];
        if (i == 0 || e->series != g->entries[i - 1].series)
            rc = extrap_region(rd, callpath, NULL) < 0 ||
                         extrap_region(rd, NULL, callpath + strlen(callpath) + 1) < 0
                     ? -1
                     : 0;
        for (j = i; j < g->nentries && g->entries[j].series == e->series &&
                    g->entries[j].point == e->point;
             j++)
            vals[j - i] = g->entries[j].v;
        if (rc == 0)
            rc = extrap_values(rd, e->point, vals, j - i);
    }
    free(vals);
    return rc;
}

/* Every line that is not blank starts with '{' (Extra-P's test for JSON Lines); f rewound. */
static int json_lines(FILE *f)
{
    char line[65536];
    int all = 1, start = 1;
    rewind(f);
    while (all && fgets(line, sizeof line, f)) {
        const char *s = line + strspn(line, " \t\r\n");
        all = !start || !*s || *s == '{';
        start = strchr(line, '\n') != NULL; /* a long line: extrap_lines says so */
    }
    rewind(f);
    return all;
}

/* A document that is one line of JSON Lines (its parameters an object). */
static int one_line(const json_t *doc)
{
    return json_is_object(json_object_get(doc, "params")) ||
           json_is_object(json_object_get(doc, "parameters"));
}

int extrap_is_json(const char *s, size_t len)
{
    json_t *doc = json_loadb(s, len, JSON_DECODE_ANY, NULL);
    json_decref(doc);
    return doc != NULL;
}

/* "JSON, but an array where ...": a document of another type than Extra-P's inputs have. */
static int not_object(struct extrap_reader *rd, const json_t *doc)
{
    static const char *const types[] = {
        [JSON_ARRAY] = "an array", [JSON_STRING] = "a string", [JSON_INTEGER] = "a number",
        [JSON_REAL] = "a number",  [JSON_TRUE] = "true",       [JSON_FALSE] = "false",
        [JSON_NULL] = "null"};
    char what[120];
    snprintf(what, sizeof what, "JSON, but %s where Extra-P's inputs hold an object",
             types[json_typeof(doc)]);
    return extrap_fail(rd, what);
}

int extrap_parse_json(struct extrap_reader *rd, FILE *f)
{
    struct gather g = {.rd = rd, .series_index = json_object(), .point_index = json_object()};
    json_error_t e;
    int rc;
    json_t *doc = json_loadf(f, JSON_DECODE_ANY, &e);
    rewind(f);
    if (!g.series_index || !g.point_index)
        rc = extrap_fail(rd, "out of memory");
    else if (doc && !json_is_object(doc))
        rc = not_object(rd, doc);
    else if (doc && one_line(doc))
        rc = extrap_lines(rd, f, read_text_line, &g);
    else if (doc)
        rc = json_object_get(doc, "callpaths") ? read_legacy(&g, doc) : read_layout(&g, doc);
    else if (json_lines(f) || !strncmp(e.text, "end of file expected", 20)) /* a bad line */
        rc = extrap_lines(rd, f, read_text_line, &g);
    else {
        char what[256];
        rd->line = e.line;
        snprintf(what, sizeof what, "not JSON (%s)", e.text);
        rc = extrap_fail(rd, what);
    }
    if (rc == 0)
        rc = emit(&g);
    json_decref(doc);
    json_decref(g.series_index);
    json_decref(g.point_index);
    for (int i = 0; i < g.nseries; i++)
        free(g.series[i]);
    free(g.series);
    free(g.coords);
    free(g.entries);
    return rc;
}
