/* The JSON profile (schema in docs/profile-schema.md): writing at finalize, reading in
 * `tardy report` and the run store. */
#ifndef TARDY_PROFILE_JSON_H
#define TARDY_PROFILE_JSON_H

#include <stddef.h>

#include "profile.h"

/* Write p as a new file in dir, named tardy-PROGRAM-Pp-TIME-PID.json (a suffix is added when
 * the name exists: an existing file is never overwritten). The file is written under a
 * temporary name first and linked into place, so readers never see half a profile.
 * Returns 0 and stores the path in p->path; -1 with a message in err. */
int profile_write(struct profile *p, const char *dir, char *err, size_t errlen);

/* Serialize p into a malloc'd string (caller frees); NULL when memory is short. */
char *profile_to_json(const struct profile *p);

/* Read a profile file into p (initialised by the caller). Returns 0, or -1 with a message
 * naming the file and the problem in err. */
int profile_read(struct profile *p, const char *path, char *err, size_t errlen);

#endif
