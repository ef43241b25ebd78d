/* The head of a stored profile: its program and start time, read from the "run" object at the
 * top of the file (tardy writes it before everything else) without parsing the rest, so that
 * the run store reads in full only the runs it keeps. */
#include "store_head.h"

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

int store_head(const char *path, char **program, char **start)
{
    *program = *start = NULL;
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
    if (p && (*program = strdup(p)) && s)
        *start = strdup(s);
    json_decref(run);
    if (*program && (!s || *start))
        return 1;
    free(*program);
    *program = NULL;
    return 0;
}
