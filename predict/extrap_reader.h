/* Extra-P's data as runs: what the parsers of its formats (extrap_text.c, extrap_json.c) hand
 * to the reader in extrap.c. Private to predict/. */
#ifndef TARDY_EXTRAP_READER_H
#define TARDY_EXTRAP_READER_H

#include <stddef.h>

#include "predict.h"

#define EXTRAP_MAX_PARAMS 8

struct extrap_reader {
    const char *path;
    int line; /* of the input being read, for messages; 0: none */
    char *err;
    size_t errlen;
    char *params[EXTRAP_MAX_PARAMS];
    int nparams;
    double *points; /* npoints × nparams */
    int npoints;
    char *region, *metric;
    /* Repetition j of every point is block j: its runs (one per point) and, per point,
     * whether that run lacks the current region's row. Blocks rather than runs per point so
     * that the first repetitions of every point come first (a policy keeping the first runs
     * keeps every point). */
    struct extrap_repetition {
        struct profile *runs;
        unsigned char *absent;
    } *reps;
    int nreps;
};

/* "path:line: what" (or "path: what" when line is 0) into err; returns -1. */
int extrap_fail(struct extrap_reader *rd, const char *what);
/* fn(ctx, line) for each line of f, counting rd->line, until it returns other than 0; a line
 * longer than 65535 characters is an error. Returns 0 or -1. */
int extrap_lines(struct extrap_reader *rd, FILE *f, int (*fn)(void *ctx, char *line), void *ctx);
/* The parameters first, then the points (each nparams values; returns its index), then the
 * data: 0 or -1 with the message in err. */
int extrap_add_param(struct extrap_reader *rd, const char *name);
int extrap_add_point(struct extrap_reader *rd, const double *v);
/* The check extrap_add_point makes: finite, p a rank count. */
int extrap_check_point(struct extrap_reader *rd, const double *v);
/* The region (when not NULL) or the metric of the values that follow (a region: tardy's
 * rows present again at every point). */
int extrap_region(struct extrap_reader *rd, const char *region, const char *metric);
/* The values of the current region and metric at a point: the j-th is repetition j's. */
int extrap_values(struct extrap_reader *rd, int point, const double *vals, int n);
/* The runs read (rc 0) or nothing (rc -1, or no data): frees what rd holds; returns the
 * number of runs (in *runs, free with store_free) or -1. */
int extrap_finish(struct extrap_reader *rd, int rc, struct profile **runs);

/* Extra-P's JSON input (its own layout and the legacy one with ids) and JSON Lines (also
 * Talpas's), read into rd; 0 or -1 (also for JSON that is not an object). */
int extrap_parse_json(struct extrap_reader *rd, FILE *f);
/* Whether the len bytes at s are one JSON value (of any type). */
int extrap_is_json(const char *s, size_t len);

#endif
