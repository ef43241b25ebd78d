/* Extra-P's text input format (PARAMETER, POINTS, REGION, METRIC, DATA), and extrap_read,
 * which takes a file in any of the formats tardy reads. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extrap_reader.h"

struct text {
    struct extrap_reader *rd;
    int point; /* the point of the next DATA line */
};

/* The number in the len bytes at s into *v: 0, or -1 with the message naming field: not a
 * number (inf and nan are none either: no measurement is), or beyond a double's range. */
static int number(struct extrap_reader *rd, const char *field, const char *s, size_t len,
                  double *v)
{
    char what[128];
    int rc = decimal_parse(s, len, v);
    if (rc == DECIMAL_RANGE)
        snprintf(what, sizeof what, "%s holds %.*s, beyond a double's range (1.8e308)", field,
                 (int)(len < 40 ? len : 40), s);
    else if (rc != DECIMAL_OK)
        snprintf(what, sizeof what, "%s holds something that is not a number", field);
    else
        return 0;
    return extrap_fail(rd, what);
}

/* The parameters' names, "p n", for the messages about points. */
static void param_names(const struct extrap_reader *rd, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < rd->nparams && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, i ? " %s" : "%s", rd->params[i]);
}

/* "point N, TEXT, WHAT" about the point to be added next, TEXT the len bytes at s as
 * written: the line may hold hundreds of points. */
static int point_fail(struct extrap_reader *rd, const char *s, size_t len, const char *what)
{
    char msg[400];
    snprintf(msg, sizeof msg, "point %d, %.*s, %s", rd->npoints + 1, (int)(len < 80 ? len : 80),
             s, what);
    return extrap_fail(rd, msg);
}

/* One point in parentheses, "(2 64)" from s to close (its ')'): one number per parameter. */
static int group_point(struct extrap_reader *rd, const char *s, const char *close)
{
    double v[EXTRAP_MAX_PARAMS], x;
    int k = 0;
    for (const char *c = s + 1; (c += strspn(c, " \t")) < close; k++) {
        size_t len = strcspn(c, " \t");
        len = c + len > close ? (size_t)(close - c) : len;
        if (number(rd, "POINTS", c, len, &x) < 0)
            return -1;
        if (k < rd->nparams)
            v[k] = x;
        c += len;
    }
    if (k != rd->nparams) {
        char what[320], names[120];
        param_names(rd, names, sizeof names);
        snprintf(what, sizeof what, "has %d value%s for %d parameters (%s)", k,
                 k == 1 ? "" : "s", rd->nparams, names);
        return point_fail(rd, s, (size_t)(close + 1 - s), what);
    }
    return extrap_add_point(rd, v) < 0 ? -1 : 0;
}

/* Points without parentheses: a number each, which only one parameter takes (Extra-P's
 * reader makes points of one value of them whatever the parameters). */
static int plain_points(struct extrap_reader *rd, const char *s)
{
    double v;
    if (*s && rd->nparams > 1) {
        char what[320], names[120];
        param_names(rd, names, sizeof names);
        snprintf(what, sizeof what, "the points of %d parameters go in parentheses, a group "
                 "per point: (%s) (%s) ...", rd->nparams, names, names);
        return extrap_fail(rd, what);
    }
    for (; *s; s += strspn(s, " \t")) {
        size_t len = strcspn(s, " \t");
        if (number(rd, "POINTS", s, len, &v) < 0 || extrap_add_point(rd, &v) < 0)
            return -1;
        s += len;
    }
    return 0;
}

/* POINTS as Extra-P's reader takes them: a group in parentheses per point when the line has
 * one, "(2 64) (4 64)" or "(2)(4)", plain numbers otherwise; s trimmed. */
static int read_points(struct text *t, char *s)
{
    struct extrap_reader *rd = t->rd;
    if (!strchr(s, '('))
        return plain_points(rd, s);
    for (; *s; s += strspn(s, " \t")) {
        char *close = strchr(s, ')');
        if (*s != '(') {
            char what[120];
            snprintf(what, sizeof what, "'%.*s' outside the parentheses of a point",
                     (int)strcspn(s, " \t("), s);
            return extrap_fail(rd, what);
        }
        if (!close)
            return point_fail(rd, s, strlen(s), "has no ')'");
        if (group_point(rd, s, close) < 0)
            return -1;
        s = close + 1;
    }
    return 0;
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
        if (n == (int)(sizeof vals / sizeof *vals))
            return extrap_fail(rd, "DATA holds more than 4096 values");
        if (number(rd, "DATA", tok, strlen(tok), &vals[n++]) < 0)
            return -1;
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
        int named = 0;
        for (char *tok = strtok(value, " \t"); tok; tok = strtok(NULL, " \t"), named++)
            if (extrap_add_param(rd, tok) < 0)
                return -1;
        return named ? 0 : extrap_fail(rd, "PARAMETER names no parameter");
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

/* A NUL byte, or bytes that are not UTF-8, anywhere in the len bytes of text: -1 with the line
 * and column (in bytes). Extra-P reads its inputs as UTF-8, and JSON's strings, which the
 * names become in `tardy predict --json`, are UTF-8; a NUL would end a line early. */
static int check_text(struct extrap_reader *rd, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text, *start = s;
    size_t k;
    rd->line = 1;
    for (size_t i = 0; i < len; i += k) {
        k = s[i] ? utf8_char(s + i, len - i) : 0;
        if (s[i] == '\n') {
            rd->line++;
            start = s + i + 1;
        }
        if (k)
            continue;
        char what[80];
        int column = (int)(s + i - start) + 1;
        if (s[i])
            snprintf(what, sizeof what, "byte 0x%02x at column %d is not UTF-8", s[i], column);
        else
            snprintf(what, sizeof what, "a NUL byte at column %d", column);
        return extrap_fail(rd, what);
    }
    rd->line = 0;
    return 0;
}

/* The length of a UTF-8 byte order mark at the start of the len bytes at s, or 0: editors on
 * Windows write one, and read as text it would be part of the first field. */
static size_t bom_of(const char *s, size_t len)
{
    return len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0;
}

/* The format by the len bytes at s: JSON when they start as JSON does ('{': Extra-P's object
 * or JSON Lines; '[') or are another JSON value, which extrap_parse_json then names; the text
 * format otherwise (a field name or '#' first, never JSON). */
static int parse_any(struct extrap_reader *rd, const char *s, size_t len, FILE *f)
{
    size_t first = 0;
    while (first < len && isspace((unsigned char)s[first]))
        first++;
    if (first < len && (s[first] == '{' || s[first] == '[' || extrap_is_json(s, len)))
        return extrap_parse_json(rd, f);
    return parse_text(rd, f);
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
    size_t bom = bom_of(text.data, text.len), len = text.len - bom;
    char *body = text.data ? text.data + bom : none;
    FILE *f = unread ? NULL : fmemopen(body, len, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read", path);
        sb_free(&text);
        return -1;
    }
    int rc = check_text(&rd, text.data, text.len);
    if (rc == 0)
        rc = parse_any(&rd, body, len, f);
    fclose(f);
    sb_free(&text);
    return extrap_finish(&rd, rc, runs);
}
