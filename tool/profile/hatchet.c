/* A profile in Hatchet's literal graph format, what hatchet.GraphFrame.from_literal reads
 * (`tardy export --hatchet`): a list of root nodes, each {"frame": {"name", "type"},
 * "metrics": {...}, "children": [...]}. The tree is the call paths of the MPI call sites as
 * functions, the outermost at the root (a node per function and file: the lines a path
 * passes through are left out, so two calls of one function merge), and the MPI call site
 * as the leaf, named by the MPI function with the file and line of the call. Metrics are summed over ranks, as in the summary's time column: "time" (seconds in
 * MPI: on the MPI leaves only), "count" (calls) and "bytes" (sent + received), each also
 * inclusive, "time (inc)", the node and everything below it. */
#include "profile_json.h"

#include <stdio.h>
#include <string.h>

static const char *const metric_names[] = {"time", "count", "bytes"};
#define NMETRICS 3

static json_t *new_node(json_t *frame)
{
    json_t *metrics = json_object();
    for (int m = 0; m < NMETRICS; m++) {
        char inc[32];
        snprintf(inc, sizeof inc, "%s (inc)", metric_names[m]);
        json_object_set_new(metrics, inc, json_real(0));
        json_object_set_new(metrics, metric_names[m], json_real(0));
    }
    return json_pack("{s:o,s:o,s:[]}", "frame", frame, "metrics", metrics, "children");
}

static void add_to(json_t *metrics, const char *name, double v)
{
    json_t *x = json_object_get(metrics, name);
    json_real_set(x, json_real_value(x) + v);
}

/* The node of path key among siblings (created when new, with frame; frame is consumed),
 * with the row's values v added to its inclusive metrics (and to its own when leaf). */
static json_t *step(json_t *index, json_t *siblings, const char *key, json_t *frame,
                    const double v[NMETRICS], int leaf)
{
    json_t *node = json_object_get(index, key);
    if (!node) {
        node = new_node(frame);
        json_array_append_new(siblings, node);
        json_object_set(index, key, node);
    } else {
        json_decref(frame);
    }
    json_t *metrics = json_object_get(node, "metrics");
    for (int m = 0; m < NMETRICS; m++) {
        char inc[32];
        snprintf(inc, sizeof inc, "%s (inc)", metric_names[m]);
        add_to(metrics, inc, v[m]);
        if (leaf)
            add_to(metrics, metric_names[m], v[m]);
    }
    return json_object_get(node, "children");
}

/* Hatchet's frame of a source frame "function file:line": {"name", "type": "function",
 * "file"}; the line is kept in *line (the call's line in that function). */
static json_t *function_frame(const char *text, size_t len, int *line)
{
    json_t *f = pj_frame(text, len);
    *line = (int)json_integer_value(json_object_get(f, "line"));
    json_object_set(f, "name", json_object_get(f, "function"));
    json_object_del(f, "function");
    json_object_del(f, "line");
    json_object_set_new(f, "type", json_string("function"));
    return f;
}

static void add_row(json_t *roots, json_t *index, const struct prof_row *r, struct strbuf *key)
{
    const double v[NMETRICS] = {r->n.time.sum, r->n.count.sum, r->n.sent.sum + r->n.recv.sum};
    const char *frames = site_frames(r->a);
    json_t *siblings = roots, *leaf = json_pack("{s:s%,s:s}", "name", r->a,
                                                site_function_len(r->a), "type", "function");
    int line = 0;
    key->len = 0;
    /* outermost frame first: the frames are innermost first, separated by ';' */
    for (size_t end = strlen(frames); end > 0;) {
        size_t start = end;
        while (start > 0 && frames[start - 1] != ';')
            start--;
        json_t *f = function_frame(frames + start, end - start, &line);
        sb_printf(key, "%s\t%s\n", json_string_value(json_object_get(f, "name")),
                  json_string_value(json_object_get(f, "file")));
        json_object_set(leaf, "file", json_object_get(f, "file"));
        siblings = step(index, siblings, key->data, f, v, 0);
        end = start ? start - 1 : 0;
    }
    if (*frames)
        json_object_set_new(leaf, "line", json_integer(line));
    sb_printf(key, "@%s:%d", json_string_value(json_object_get(leaf, "name")), line);
    step(index, siblings, key->data, leaf, v, 1);
}

char *hatchet_literal(const struct profile *p)
{
    json_t *roots = json_array(), *index = json_object();
    struct strbuf key;
    sb_init(&key);
    for (size_t i = 0; i < p->rows.n; i++)
        if (p->rows.rows[i].kind == ROW_MPI)
            add_row(roots, index, &p->rows.rows[i], &key);
    sb_free(&key);
    char *text = json_text(roots, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(index);
    json_decref(roots);
    return text;
}
