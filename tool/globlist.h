/* Name lists of the options that select by name (TARDY_PVARS, TARDY_CVARS_RECORD,
 * TARDY_PVAR_COUNTERS): comma-separated glob patterns, case-insensitive, !pattern excludes. */
#ifndef TARDY_GLOBLIST_H
#define TARDY_GLOBLIST_H

/* 1 when name matches one of the patterns and none of those written !pattern. */
int gl_match(const char *patterns, const char *name);

#endif
