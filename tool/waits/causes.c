/* Root causes (H-CWP-DM, docs/design.md 3.6): a wait is shared out among the late rank's
 * hotspot regions by their excess over the waiting rank's own time in the same regions, each
 * side's regions taken since the two ranks' last synchronisation point (sections.c). Pure
 * arithmetic on records: no MPI, no state. */
#include "ws_data.h"

int ws_hotspot_permille = 10;

static double ledger_time(const struct ws_reg *led, int nled, uint64_t key)
{
    for (int i = 0; i < nled; i++)
        if (led[i].key == key)
            return led[i].t;
    return 0;
}

int ws_shares(const struct ws_led *mine, int me, double wait, const struct ws_msg *m,
              struct ws_share out[WS_K])
{
    struct ws_reg late[WS_K], own[WS_K];
    double total, own_total;
    int n = ws_led_since(&m->led, me, late, &total, NULL), k = 0;
    int nown = mine ? ws_led_since(mine, m->rank, own, &own_total, NULL) : 0;
    /* H-CWP-DM: the excess σ of each hotspot region of the late rank over this rank, in the
     * same synchronisation interval, shares out the wait. */
    double sigma[WS_K], sum = 0, floor_t = total * ws_hotspot_permille / 1000.0;
    for (int i = 0; i < n; i++) {
        double s = late[i].t - ledger_time(own, nown, late[i].key);
        sigma[i] = late[i].t >= floor_t && s > 0 ? s : 0;
        sum += sigma[i];
    }
    if (!(sum > 0)) {
        out[0] = ws_unexplained(wait);
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (sigma[i] > 0)
            out[k++] = (struct ws_share){late[i].key, sigma[i] / sum * wait};
    return k;
}
