/* The sections of a ledger (H-CWP-DM's synchronisation interval, docs/design.md 3.6): a wait
 * of rank p on rank q is shared out over q's regions since the last synchronisation point of
 * p and q, so each rank's ledger is cut where it sent to or received from a rank, and the
 * other side takes the part after its own last cut. A few sections and a 64-bit mask of
 * ranks each: memory does not grow with the ranks or the run. Pure arithmetic: no MPI. */
#include "ws_data.h"

void ws_led_reset(struct ws_led *l)
{
    l->nreg = 0;
    l->nsec = 1;
    l->peers[0] = ~0ull;
    l->sent[0] = 0;
    l->sec_t[0] = 0;
}

/* Ranks of mask peers (sent: only sent to) join the cut of section s. */
static void join(struct ws_led *l, int s, uint64_t peers, int sent)
{
    uint64_t received = (l->peers[s] & ~l->sent[s]) | (sent ? 0 : peers);
    l->peers[s] |= peers;
    l->sent[s] = l->peers[s] & ~received;
}

/* Section i (>= 1) joins section i - 1: its ranks then begin there, and take i - 1's time
 * as if it came after their synchronisation. */
static void merge(struct ws_led *l, int i)
{
    join(l, i - 1, l->peers[i] & ~l->sent[i], 0);
    join(l, i - 1, l->sent[i], 1);
    l->sec_t[i - 1] += l->sec_t[i];
    for (int s = i; s + 1 < l->nsec; s++) {
        l->peers[s] = l->peers[s + 1];
        l->sent[s] = l->sent[s + 1];
        l->sec_t[s] = l->sec_t[s + 1];
    }
    l->nsec--;
    /* a key is in a section at most once: only regions of section i can meet their key in
     * i - 1 (the regions of one section are few; all of them, up to WS_K, are not) */
    int prev[WS_K], np = 0, gone = 0;
    for (int r = 0; r < l->nreg; r++)
        if (l->sec[r] == i - 1)
            prev[np++] = r;
    for (int r = 0; r < l->nreg; r++) {
        if (l->sec[r] > i) {
            l->sec[r]--;
        } else if (l->sec[r] == i) {
            int k = 0;
            while (k < np && l->reg[prev[k]].key != l->reg[r].key)
                k++;
            if (k < np) {
                l->reg[prev[k]].t += l->reg[r].t;
                l->sec[r] = UINT8_MAX;
                gone++;
            } else {
                l->sec[r] = (uint8_t)(i - 1);
            }
        }
    }
    if (!gone) /* the common case: adjacent sections of a loop share no key */
        return;
    int n = 0;
    for (int r = 0; r < l->nreg; r++)
        if (l->sec[r] != UINT8_MAX) {
            l->reg[n] = l->reg[r];
            l->sec[n++] = l->sec[r];
        }
    l->nreg = n;
}

void ws_led_sync(struct ws_led *l, uint64_t peers, int sent)
{
    int n = l->nsec;
    if (!(l->sec_t[n - 1] > 0)) { /* nothing since the newest section began: it begins here */
        join(l, n - 1, peers, sent);
        return;
    }
    if (n == WS_SECS) {
        /* the ranks of the merged-away cut take the section before it too: the smallest */
        int best = 1;
        for (int i = 2; i < n; i++)
            if (l->sec_t[i - 1] < l->sec_t[best - 1])
                best = i;
        merge(l, best);
        n--;
    }
    l->peers[n] = peers;
    l->sent[n] = sent ? peers : 0;
    l->sec_t[n] = 0;
    l->nsec = n + 1;
}

int ws_led_since(const struct ws_led *l, int peer, struct ws_reg out[WS_K], double *total,
                 int *sent)
{
    int from = 0;
    for (int s = l->nsec - 1; s > 0 && peer >= 0; s--)
        if (l->peers[s] & ws_rank_bit(peer)) {
            from = s;
            break;
        }
    if (sent)
        *sent = from > 0 && (l->sent[from] & ws_rank_bit(peer));
    *total = 0;
    for (int s = from; s < l->nsec; s++)
        *total += l->sec_t[s];
    int n = 0;
    for (int r = 0; r < l->nreg; r++) {
        if (l->sec[r] < from)
            continue;
        int k = 0;
        while (k < n && out[k].key != l->reg[r].key)
            k++;
        if (k < n)
            out[k].t += l->reg[r].t;
        else
            out[n++] = l->reg[r];
    }
    return n;
}
