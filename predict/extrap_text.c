/* Extra-P's text input format (PARAMETER, POINTS, REGION, METRIC, DATA), and extrap_read,
 * which takes a file in any of the formats tardy reads. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extrap_reader.h"

struct text {
    struct extrap_reader *rd;
    int point; /* the point of the next DATA line */
};

static int read_points(struct text *t, char *s)
{
    struct extrap_reader *rd = t->rd;
    double v[EXTRAP_MAX_PARAMS];
    int k = 0;
    for (char *tok = strtok(s, " \t()"); tok; tok = strtok(NULL, " \t()")) {
        char *end;
        v[k] = strtod(tok, &end);
        if (*end)
            return extrap_fail(rd, "POINTS holds something that is not a number");
        if (++k == rd->nparams) {
            if (extrap_add_point(rd, v) < 0)
                return -1;
            k = 0;
        }
    }
    return k ? extrap_fail(rd, "a point has fewer coordinates than there are parameters") : 0;
}

static int read_data(struct text *t, char *s)
{
    struct extrap_reader *rd = t->rd;
    if (!rd->region)
        return extrap_fail(rd, "DATA before REGION");
    /* a file without METRIC lines is Extra-P's too: its reader names that metric "" */
    if (!rd->metric && extrap_region(rd, NULL, "") < 0)
        return -1;
    if (t->point >= rd->npoints)
        return extrap_fail(rd, "more DATA lines than POINTS");
    double vals[4096];
    int n = 0;
    for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
        char *end;
        if (n == (int)(sizeof vals / sizeof *vals))
            return extrap_fail(rd, "DATA holds more than 4096 values");
        vals[n++] = strtod(tok, &end);
        if (*end || !isfinite(vals[n - 1]))
            return extrap_fail(rd, "DATA holds something that is not a number");
    }
    if (!n)
        return extrap_fail(rd, "DATA without values");
    return extrap_values(rd, t->point++, vals, n);
}

static int read_line(void *ctx, char *line)
{
    struct text *t = ctx;
    struct extrap_reader *rd = t->rd;
    line[strcspn(line, "\r\n")] = '\0';
    char *s = line + strspn(line, " \t");
    if (!*s || *s == '#')
        return 0;
    char *value = s + strcspn(s, " \t");
    if (*value)
        *value++ = '\0';
    value = str_trim(value); /* names end at their last visible character, as Extra-P's */
    /* the points' layout is fixed by the parameters, the runs' by the points */
    if (!strcmp(s, "PARAMETER")) {
        if (rd->npoints)
            return extrap_fail(rd, "PARAMETER after POINTS");
        for (char *tok = strtok(value, " \t"); tok; tok = strtok(NULL, " \t"))
            if (extrap_add_param(rd, tok) < 0)
                return -1;
        return 0;
    }
    if (!strcmp(s, "POINTS")) {
        if (rd->nreps)
            return extrap_fail(rd, "POINTS after DATA");
        return rd->nparams ? read_points(t, value) : extrap_fail(rd, "POINTS before PARAMETER");
    }
    if (!strcmp(s, "REGION") || !strcmp(s, "METRIC")) {
        t->point = 0;
        return s[0] == 'R' ? extrap_region(rd, value, NULL) : extrap_region(rd, NULL, value);
    }
    if (!strcmp(s, "DATA"))
        return read_data(t, value);
    return extrap_fail(rd, "unknown field (expected PARAMETER, POINTS, REGION, METRIC or DATA)");
}

static int parse_text(struct extrap_reader *rd, FILE *f)
{
    struct text t = {rd, 0};
    return extrap_lines(rd, f, read_line, &t);
}

int extrap_read(const char *path, struct profile **runs, char *err, size_t errlen)
{
    struct extrap_reader rd = {.path = path, .err = err, .errlen = errlen};
    FILE *in = fopen(path, "r");
    *runs = NULL;
    if (!in) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    /* the whole input in memory: its first character tells the format, and a pipe cannot be
     * rewound to read it again (`--extrap /dev/stdin`) */
    struct strbuf text;
    sb_init(&text);
    int unread = sb_read(&text, in);
    fclose(in);
    char none[1] = "";
    FILE *f = unread ? NULL : fmemopen(text.data ? text.data : none, text.len, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read", path);
        sb_free(&text);
        return -1;
    }
    size_t first = 0;
    while (first < text.len && isspace((unsigned char)text.data[first]))
        first++;
    int rc = first < text.len && text.data[first] == '{' ? extrap_parse_json(&rd, f)
                                                          : parse_text(&rd, f);
    fclose(f);
    sb_free(&text);
    return extrap_finish(&rd, rc, runs);
}
