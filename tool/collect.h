/* At finalize: turn this process's per-thread tables into rows keyed by symbolized call
 * sites, one rank's worth, ready for the reduction. */
#ifndef TARDY_COLLECT_H
#define TARDY_COLLECT_H

#include "profile.h"

/* Fill rs with this rank's MPI, interval and per-rank rows (and the MPI library's memory when
 * memory is set). wall is the rank's time from MPI_Init to MPI_Finalize. Returns 0, or -1
 * when memory ran out (rs then holds what fit). */
int collect_rank(struct rowset *rs, int rank, double wall, int memory);

/* Call-site strings ("MPI_Send@frames", as in the profile's rows) for other modules at
 * finalize: open, name sites (valid until the next call), close. */
struct names;
struct strbuf;
struct names *collect_names_open(void);
const char *collect_site_name(struct names *nm, uint64_t site, struct strbuf *into);
void collect_names_close(struct names *nm);

#endif
