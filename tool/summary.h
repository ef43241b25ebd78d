/* The human-readable summary of a reduced profile: printed by rank 0 at finalize and again by
 * `tardy report`. Section headings start with "== " so they can be grepped; lines fit 100
 * columns. */
#ifndef TARDY_SUMMARY_H
#define TARDY_SUMMARY_H

#include "profile.h"
#include "strbuf.h"

/* Append the summary of p, at most top rows per table. */
void summary_write(const struct profile *p, int top, struct strbuf *out);

/* Append only the predictions section (nothing when p has none). */
void summary_predictions(const struct profile *p, struct strbuf *out);

#endif
