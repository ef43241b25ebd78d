/* Two profiles compared row by row (`tardy diff`, and the HTML page of a diff): the call
 * sites, compute intervals and wait rows of both runs matched by their keys, which are the
 * call sites' text (function and source frames, the same in every run of one binary), never
 * the call-path ids of a file. Values are per-rank means, so runs at different scales
 * compare. */
#include "profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int diff_kinds[] = {ROW_MPI, ROW_INTERVAL, ROW_WAIT};

static void side_of(struct diff_side *s, const struct prof_row *r, int ranks)
{
    double n = ranks > 0 ? ranks : 1;
    s->present = 1;
    s->time = r->n.time.sum / n;
    s->count = r->n.count.sum / n;
    s->bytes = (r->n.sent.sum + r->n.recv.sum) / n;
}

static int add_row(struct profile_diff *d, const struct prof_row *ra, const struct prof_row *rb,
                   const struct profile *a, const struct profile *b)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        struct diff_row *rows = realloc(d->rows, cap * sizeof *rows);
        if (!rows)
            return -1;
        d->rows = rows;
        d->cap = cap;
    }
    struct diff_row *r = &d->rows[d->n++];
    memset(r, 0, sizeof *r);
    const struct prof_row *key = ra ? ra : rb;
    r->kind = key->kind;
    r->a = key->a;
    r->b = key->b;
    if (ra)
        side_of(&r->in_a, ra, a->ranks);
    if (rb)
        side_of(&r->in_b, rb, b->ranks);
    return 0;
}

static int kind_order(int kind)
{
    for (int i = 0; i < (int)(sizeof diff_kinds / sizeof *diff_kinds); i++)
        if (diff_kinds[i] == kind)
            return i;
    return -1;
}

/* By kind, then largest absolute change of time first, then by key (a stable order for
 * equal changes). */
static int by_change(const void *x, const void *y)
{
    const struct diff_row *p = x, *q = y;
    if (p->kind != q->kind)
        return kind_order(p->kind) - kind_order(q->kind);
    double cp = fabs(diff_change(p)), cq = fabs(diff_change(q));
    if (cp != cq)
        return cp < cq ? 1 : -1;
    int c = strcmp(p->a, q->a);
    return c ? c : strcmp(p->b ? p->b : "", q->b ? q->b : "");
}

int profile_diff(const struct profile *a, const struct profile *b, struct profile_diff *d)
{
    memset(d, 0, sizeof *d);
    d->a = a;
    d->b = b;
    for (size_t i = 0; i < a->rows.n; i++) {
        const struct prof_row *r = &a->rows.rows[i];
        if (kind_order(r->kind) >= 0 &&
            add_row(d, r, rowset_find(&b->rows, r->kind, r->a, r->b), a, b) < 0)
            goto fail;
    }
    for (size_t i = 0; i < b->rows.n; i++) {
        const struct prof_row *r = &b->rows.rows[i];
        if (kind_order(r->kind) >= 0 && !rowset_find(&a->rows, r->kind, r->a, r->b) &&
            add_row(d, NULL, r, a, b) < 0)
            goto fail;
    }
    if (d->n)
        qsort(d->rows, d->n, sizeof *d->rows, by_change);
    return 0;
fail:
    profile_diff_free(d);
    return -1;
}

void profile_diff_free(struct profile_diff *d)
{
    free(d->rows);
    d->rows = NULL;
    d->n = d->cap = 0;
}

double diff_change(const struct diff_row *r)
{
    return r->in_b.time - r->in_a.time;
}

const char *diff_status(const struct diff_row *r)
{
    return !r->in_a.present ? "new" : !r->in_b.present ? "vanished" : "both";
}

double diff_rank_mean(const struct profile *p, const char *metric)
{
    const struct red_stat *s = profile_rank_metric(p, metric);
    return s && p->ranks > 0 ? s->sum / p->ranks : NAN;
}
