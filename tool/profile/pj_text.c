/* The text of tardy's JSON documents (profiles, diffs): a row per line, so grep and diff read
 * them, without indentation inside a row, and numbers in their shortest exact form. */
#include "profile_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_string(struct strbuf *out, const char *s)
{
    sb_add(out, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            char esc[2] = {'\\', (char)*c};
            sb_add(out, esc, 2);
        } else if (*c < 0x20) {
            sb_printf(out, "\\u%04x", *c);
        } else {
            sb_add(out, c, 1);
        }
    }
    sb_add(out, "\"", 1);
}

/* The fewest significant digits that read back as x: %.15g already drops the trailing zeros
 * of any value that 15 digits hold, so at most three tries. */
static void put_real(struct strbuf *out, double x)
{
    char text[32];
    if (!isfinite(x)) {
        sb_puts(out, "null");
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, x);
        if (strtod(text, NULL) == x)
            break;
    }
    sb_puts(out, text);
}

/* Members of containers at depth 0 and 1 (the document and its tables) each on a line. */
static void put_value(struct strbuf *out, json_t *v, int depth)
{
    const char *sep = depth < 2 ? ",\n" : ",", *open = depth < 2 ? "\n" : "";
    size_t i;
    const char *key;
    json_t *x;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        if (!json_object_size(v)) {
            sb_puts(out, "{}");
            break;
        }
        sb_printf(out, "{%s", open);
        i = 0;
        json_object_foreach(v, key, x) {
            sb_puts(out, i++ ? sep : "");
            put_string(out, key);
            sb_add(out, ":", 1);
            put_value(out, x, depth + 1);
        }
        sb_printf(out, "%s}", open);
        break;
    case JSON_ARRAY:
        if (!json_array_size(v)) {
            sb_puts(out, "[]");
            break;
        }
        sb_printf(out, "[%s", open);
        json_array_foreach(v, i, x) {
            sb_puts(out, i ? sep : "");
            put_value(out, x, depth + 1);
        }
        sb_printf(out, "%s]", open);
        break;
    case JSON_STRING:
        put_string(out, json_string_value(v));
        break;
    case JSON_INTEGER:
        sb_printf(out, "%lld", (long long)json_integer_value(v));
        break;
    case JSON_REAL:
        put_real(out, json_real_value(v));
        break;
    case JSON_TRUE:
        sb_puts(out, "true");
        break;
    case JSON_FALSE:
        sb_puts(out, "false");
        break;
    default:
        sb_puts(out, "null");
        break;
    }
}

char *pj_text(json_t *root)
{
    struct strbuf out;
    sb_init(&out);
    put_value(&out, root, 0);
    if (out.failed || !out.data) {
        sb_free(&out);
        return NULL;
    }
    return out.data;
}

static int add_text(const char *bytes, size_t n, void *sb)
{
    sb_add(sb, bytes, n);
    return ((struct strbuf *)sb)->failed ? -1 : 0;
}

char *json_text(const json_t *doc, size_t flags)
{
    struct strbuf out;
    sb_init(&out);
    if (json_dump_callback(doc, add_text, &out, flags) != 0 || out.failed || !out.data) {
        sb_free(&out);
        return NULL;
    }
    return out.data;
}
