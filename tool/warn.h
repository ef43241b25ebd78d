/* Messages from the tool to the user: one line on stderr, prefixed with the rank. */
#ifndef TARDY_WARN_H
#define TARDY_WARN_H

/* World rank of this process once MPI is initialised, -1 before. */
extern int tardy_rank;

void tardy_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
