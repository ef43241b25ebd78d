/* Pieces of the JSON profile's writer (profile_json.c) that other documents of tool/profile
 * reuse (the diff): internal to the room. */
#ifndef TARDY_PROFILE_JSON_H
#define TARDY_PROFILE_JSON_H

#include <jansson.h>

#include "profile.h"

/* {"function", "file", "line"} of one frame "function file:line" of len bytes (file "??" and
 * line 0 when it has no file); NULL when memory is short. */
json_t *pj_frame(const char *text, size_t len);

/* {"function", "callpath": id} of a call-site string; its frames are interned into paths
 * (the "callpaths" array: {"id", "frames": [{"function", "file", "line"}]}), ids maps frame
 * strings to their id. */
json_t *pj_site(json_t *paths, json_t *ids, const char *site);

/* The "run" object of p: program, args, ranks, hosts, MPI, start time, run_id, ... */
json_t *pj_run(const struct profile *p);

#endif
