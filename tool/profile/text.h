/* The summary's text pieces (text.c), shared by the summary and the diff of two profiles:
 * internal to tool/profile. */
#ifndef TARDY_PROFILE_TEXT_H
#define TARDY_PROFILE_TEXT_H

#include <stddef.h>

#include "profile.h"

#define WIDTH 100 /* columns of every line */

/* "\n== title ====...": a section heading the full width (grep for "== "). */
void txt_heading(struct strbuf *out, const char *title);

/* Seconds with a unit that keeps 3-4 significant digits; returns buf. */
const char *txt_time(double s, char *buf, size_t len);

/* Bytes in B, KiB, MiB, ...; returns buf. */
const char *txt_bytes(double b, char *buf, size_t len);

/* "function file.c:line" of the innermost frame of a site (file without directories), or the
 * MPI function when the site has no frames. */
void txt_site_label(const char *site, struct strbuf *out);

/* "function:line MPI_X" of a site, the seed's interval naming plus the MPI call. */
void txt_site_short(const char *site, struct strbuf *out);

/* End a table line that began at out->len == start with label, clipped to the width. */
void txt_finish_line(struct strbuf *out, size_t start, struct strbuf *label);

#endif
