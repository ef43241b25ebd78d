/* The head of a stored profile: its program, start time, scale and parameters, read from the
 * "run" object at the top of the file (tardy writes it before everything else) without parsing
 * the rest, so that the run store reads in full only the runs it keeps. */
#include "store_head.h"
#include "predict.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD_BYTES 65536 /* the run object of any profile tardy writes is far smaller */

/* The text [*b, *e) of the top-level "run" object in s[0..n); 0 when s ends before it does. */
static int run_object(const char *s, size_t n, size_t *b, size_t *e)
{
    int depth = 0, in_string = 0, after_run = 0, inside = 0;
    size_t key = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"') {
                in_string = 0;
                after_run = depth == 1 && !inside && i - key == 3 && !memcmp(s + key, "run", 3);
            }
            continue;
        }
        switch (c) {
        case '"':
            in_string = 1;
            key = i + 1;
            break;
        case '{':
        case '[':
            if (depth == 1 && after_run && c == '{') {
                *b = i;
                inside = 1;
            }
            depth++;
            break;
        case '}':
        case ']':
            if (--depth == 1 && inside) {
                *e = i + 1;
                return 1;
            }
            if (depth < 1)
                return 0;
            break;
        case ':':
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            break;
        default: /* a value or a comma: a key read before it is no longer the run's */
            after_run = 0;
        }
    }
    return 0;
}

static int by_key(const void *x, const void *y)
{
    return strcmp(((const struct prof_param *)x)->key, ((const struct prof_param *)y)->key);
}

char *store_scale(int ranks, const struct prof_param *params, int nparams)
{
    struct prof_param *sorted = malloc(((size_t)nparams + 1) * sizeof *sorted);
    size_t len = 32;
    for (int i = 0; i < nparams; i++)
        len += strlen(params[i].key) + strlen(params[i].value) + 2;
    char *s = sorted ? malloc(len) : NULL;
    if (s) {
        for (int i = 0; i < nparams; i++)
            sorted[i] = params[i];
        qsort(sorted, (size_t)nparams, sizeof *sorted, by_key);
        int at = snprintf(s, len, "p=%d", ranks);
        for (int i = 0; i < nparams; i++)
            at += snprintf(s + at, len - (size_t)at, ",%s=%s", sorted[i].key, sorted[i].value);
    }
    free(sorted);
    return s;
}

int store_param_is_number(const char *value)
{
    return decimal_number(value, NULL);
}

void store_params_free(struct prof_param *params, int n)
{
    for (int i = 0; params && i < n; i++) {
        free(params[i].key);
        free(params[i].value);
    }
    free(params);
}

int store_params_copy(const struct prof_param *params, int n, struct prof_param **to)
{
    struct prof_param *c = calloc((size_t)n + 1, sizeof *c);
    int i = 0;
    for (; c && i < n; i++)
        if (!(c[i].key = strdup(params[i].key)) || !(c[i].value = strdup(params[i].value)))
            break;
    if (!c || i < n) {
        store_params_free(c, i + 1); /* c[i] may hold its key */
        return -1;
    }
    qsort(c, (size_t)n, sizeof *c, by_key);
    *to = c;
    return n;
}

/* The parameters of the run object run into h->params, read as profile_read reads them and
 * sorted; -1 when params is not an object (the file is then read in full, as profile_read
 * takes it) or memory is short. */
static int params_of(json_t *run, struct store_head *h)
{
    json_t *params = json_object_get(run, "params"), *v;
    const char *key;
    if (params && !json_is_object(params))
        return -1;
    h->params = calloc(json_object_size(params) + 1, sizeof *h->params);
    if (!h->params)
        return -1;
    json_object_foreach(params, key, v) {
        char number[32];
        const char *text = json_string_value(v) ? json_string_value(v) : "";
        if (json_is_number(v)) {
            snprintf(number, sizeof number, "%.17g", json_number_value(v));
            text = number;
        }
        struct prof_param *q = &h->params[h->nparams++]; /* counted: freed if half made */
        if (!(q->key = strdup(key)) || !(q->value = strdup(text)))
            return -1;
    }
    qsort(h->params, (size_t)h->nparams, sizeof *h->params, by_key);
    return 0;
}

void store_head_free(struct store_head *h)
{
    free(h->program);
    free(h->start);
    free(h->scale);
    store_params_free(h->params, h->nparams);
    *h = (struct store_head){0};
}

int store_head(const char *path, struct store_head *h)
{
    *h = (struct store_head){0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *buf = malloc(HEAD_BYTES);
    size_t n = buf ? fread(buf, 1, HEAD_BYTES, f) : 0, b = 0, e = 0;
    fclose(f);
    json_t *run = NULL;
    if (buf && run_object(buf, n, &b, &e))
        run = json_loadb(buf + b, e - b, 0, NULL);
    free(buf);
    const char *p = json_string_value(json_object_get(run, "program"));
    const char *s = json_string_value(json_object_get(run, "start_time"));
    json_t *ranks = json_object_get(run, "ranks");
    int ok = p && json_is_integer(ranks) && (h->program = strdup(p)) &&
             (!s || (h->start = strdup(s))) && params_of(run, h) == 0 &&
             (h->scale = store_scale((int)json_integer_value(ranks), h->params, h->nparams));
    json_decref(run);
    if (!ok)
        store_head_free(h);
    return ok;
}
