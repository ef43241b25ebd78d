/* The diff of two profiles as a JSON document, "tardy-diff" (docs/diff-schema.md): what
 * `tardy diff --json` prints and the HTML page of a diff reads. */
#include "profile_json.h"

#include <math.h>
#include <stdlib.h>

/* {"a", "b", "change", "relative"}: relative is the change over a, null where a is 0. */
static json_t *change_json(double a, double b)
{
    return json_pack("{s:f,s:f,s:f,s:o}", "a", a, "b", b, "change", b - a, "relative",
                     a != 0 ? json_real((b - a) / a) : json_null());
}

static json_t *row_json(const struct diff_row *r, struct pj_paths *t)
{
    json_t *o = json_object();
    if (r->kind == ROW_MPI) {
        json_object_update_new(o, pj_site(t, r->a));
    } else if (r->kind == ROW_INTERVAL) {
        json_object_set_new(o, "from", pj_site(t, r->a));
        json_object_set_new(o, "to", pj_site(t, r->b ? r->b : ""));
    } else {
        json_object_set_new(o, "pattern", json_string(r->a));
        json_object_update_new(o, pj_site(t, r->b ? r->b : ""));
    }
    json_object_set_new(o, "status", json_string(diff_status(r)));
    json_object_set_new(o, "time", change_json(r->in_a.time, r->in_b.time));
    json_object_set_new(o, "count", change_json(r->in_a.count, r->in_b.count));
    if (r->kind == ROW_MPI)
        json_object_set_new(o, "bytes", change_json(r->in_a.bytes, r->in_b.bytes));
    return o;
}

/* Per-rank means of the runs' totals that both profiles have. */
static json_t *totals_json(const struct profile *a, const struct profile *b)
{
    static const char *const metric[] = {"wall", "mpi", "compute", "wait_time"};
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof metric / sizeof *metric; i++) {
        double x = diff_rank_mean(a, metric[i]), y = diff_rank_mean(b, metric[i]);
        if (isfinite(x) && isfinite(y))
            json_object_set_new(o, metric[i], change_json(x, y));
    }
    return o;
}

static json_t *side_json(const struct profile *p)
{
    json_t *o = pj_run(p);
    json_object_set_new(o, "path", json_string(p->path ? p->path : ""));
    return o;
}

char *diff_to_json(const struct profile_diff *d)
{
    struct pj_paths t;
    pj_paths_init(&t);
    json_t *root = json_object();
    json_t *mpi = json_array(), *intervals = json_array(), *waits = json_array();
    json_object_set_new(root, "schema", json_string("tardy-diff"));
    json_object_set_new(root, "version", json_integer(2));
    json_object_set_new(root, "a", side_json(d->a));
    json_object_set_new(root, "b", side_json(d->b));
    json_object_set_new(root, "same_ranks", json_boolean(d->a->ranks == d->b->ranks));
    json_object_set_new(root, "totals", totals_json(d->a, d->b));
    for (size_t i = 0; i < d->n; i++) {
        const struct diff_row *r = &d->rows[i];
        json_array_append_new(r->kind == ROW_MPI ? mpi : r->kind == ROW_INTERVAL ? intervals
                                                                                 : waits,
                              row_json(r, &t));
    }
    json_object_set_new(root, "mpi", mpi);
    json_object_set_new(root, "intervals", intervals);
    json_object_set_new(root, "waits", waits);
    pj_paths_put(&t, root);
    char *text = pj_text(root);
    json_decref(root);
    return text;
}
