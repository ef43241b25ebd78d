/* Pieces of the JSON profile's writer (profile_json.c) that its reader (profile_read.c) and
 * other documents of tool/profile reuse (the diff, Hatchet's format): internal to the room. */
#ifndef TARDY_PROFILE_JSON_H
#define TARDY_PROFILE_JSON_H

#include <jansson.h>

#include "profile.h"

/* ---- pj_paths.c: call paths, as version 2 of the profile writes them ---- */
/* {"function", "file", "line"} of one frame "function file:line" of len bytes (file "??" and
 * line 0 when it has no file); NULL when memory is short. */
json_t *pj_frame(const char *text, size_t len);

/* The tables of one document being written: every file, frame and call path once. */
struct pj_paths {
    json_t *files;     /* ["file", ...] */
    json_t *frames;    /* [[function, file id, line], ...] */
    json_t *callpaths; /* [[frame id, ...] innermost first, ...] */
    json_t *ids;       /* "kind\ttext" -> id, while writing */
};
void pj_paths_init(struct pj_paths *t);

/* {"function", "callpath": id} of a call-site string "function@frames"; its frames go into
 * the tables. */
json_t *pj_site(struct pj_paths *t, const char *site);

/* Move the tables into doc as "files", "frames" and "callpaths"; t is spent. */
void pj_paths_put(struct pj_paths *t, json_t *doc);

/* ---- pj_text.c ---- */
/* The text of doc: the members of the document and of its tables each on a line, nothing
 * indented, numbers in the fewest digits that read back as the same double. Caller frees;
 * NULL when memory is short. */
char *pj_text(json_t *doc);

/* ---- profile_json.c ---- */
/* The "run" object of p: program, args, ranks, hosts, MPI, start time, run_id, ... */
json_t *pj_run(const struct profile *p);

/* The histogram a row implies where version 2 leaves it out: n values summing to sum, all in
 * the bin of the largest, max (no bins when n is 0). The writer leaves out exactly the
 * histograms equal to it, the reader fills them in. */
void pj_hist_implied(struct hist *h, double n, double sum, double max);

/* The statistic a row implies where version 2 leaves "sent" or "recv" out: no byte on any
 * of the ranks that have the row (count's), min and max at the lowest of them by the tie
 * rule, which is count's min_rank or max_rank, whichever is lower. */
void pj_zero_implied(struct red_stat *s, const struct red_stat *count);

#endif
