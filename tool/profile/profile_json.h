/* Pieces of the JSON profile's writer and reader (profile_json.c) that other documents of
 * tool/profile reuse (the diff, Hatchet's format): internal to the room. */
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

/* The frames of each call path of a document, "function file:line;...", by id. */
struct pj_pathtext {
    char **text;
    size_t n;
};
/* Read doc's call paths, version 2's tables or version 1's objects, into pt. Returns 0, or
 * -1 with the problem in *why; pj_pathtext_free(pt) either way. */
int pj_paths_read(json_t *doc, struct pj_pathtext *pt, const char **why);
void pj_pathtext_free(struct pj_pathtext *pt);

/* ---- pj_text.c ---- */
/* The text of doc: the members of the document and of its tables each on a line, nothing
 * indented, numbers in the fewest digits that read back as the same double. Caller frees;
 * NULL when memory is short. */
char *pj_text(json_t *doc);

/* ---- profile_json.c ---- */
/* The "run" object of p: program, args, ranks, hosts, MPI, start time, run_id, ... */
json_t *pj_run(const struct profile *p);

#endif
