/* Wait states: the parts of one call's wait that are known only after it returns (answers
 * to the synchronous sends it completed, collective exchanges still in flight, the
 * piggybacks of its receives) form a group; the call counts one wait, the largest, recorded
 * against its own ledger once every part is in. A call with no such part, or only
 * piggybacks, needs no group (p2p.c's callwait covers it). */
#include "ws_record.h"

#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"

struct ws_group *ws_group_join(struct ws_thread *w)
{
    struct ws_group *g = w->group;
    if (!g) {
        if ((g = w->free_groups))
            w->free_groups = g->next;
        else if (!(g = malloc(sizeof *g)))
            return NULL; /* the part is recorded on its own */
        g->left = 1; /* the call itself, until ws_settle */
        g->best_w = 0;
        g->led = w->led;
        w->group = g;
    }
    g->left++;
    return g;
}

void ws_group_put(struct ws_thread *w, struct ws_group *g, int pattern, double wait,
                  const struct ws_msg *m)
{
    if (wait > g->best_w && m->rank != tardy_rank) {
        g->best_w = wait;
        g->pattern = pattern;
        g->best = *m;
    }
    if (--g->left)
        return;
    if (g->best_w > 0 && g->site) {
        if (g->pattern == WS_LATE_SENDER)
            ws_ls_hold(w, g->site, g->best_w, &g->best, &g->led);
        else
            ws_record_led(w, g->site, g->pattern, g->best_w, &g->best, &g->led);
    }
    g->next = w->free_groups;
    w->free_groups = g;
}
