/* Wait states, layer 5 of 5: collection and the life cycle (waits.c, collect.c): the rows at
 * finalize. */
#ifndef TARDY_WS_COLLECT_H
#define TARDY_WS_COLLECT_H

#include "ws_match.h"

/* ---- rows at finalize (collect.c) ---- */
struct rowset;
int ws_collect(struct rowset *rs, int rank);
int ws_used_in_run(void);

#endif
