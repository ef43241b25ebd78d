/* The sections of a ledger (H-CWP-DM's synchronisation interval, docs/design.md 3.6): a wait
 * of rank p on rank q is shared out over q's regions since the last synchronisation point of
 * p and q, so each rank's ledger is cut where it sent to or received from a rank, and the
 * other side takes the part after its own last cut. A few sections and a 64-bit mask of
 * ranks each: memory does not grow with the ranks or the run. Pure arithmetic: no MPI. */
#include "ws_data.h"

#include <string.h>

void ws_led_reset(struct ws_led *l)
{
    l->nreg = 0;
    l->nsec = 1;
    l->slots[0] = 0;
    l->peers[0] = ~0ull;
    l->sent[0] = 0;
    l->sec_t[0] = 0;
    l->floor = -HUGE_VAL;
}

/* Every section's byte of slots as one word (WS_SECS bytes): one operation for all. */
_Static_assert(WS_SECS == sizeof(uint32_t), "the slot masks of the sections are one word");
#define EACH_SECTION(bits) ((uint32_t)(bits) * 0x01010101u)

static uint32_t slot_word(const struct ws_led *l)
{
    uint32_t w;
    memcpy(&w, l->slots, sizeof w);
    return w;
}

static void set_slot_word(struct ws_led *l, uint32_t w)
{
    memcpy(l->slots, &w, sizeof w);
}

/* Ranks of mask peers (sent: only sent to) join the cut of section s. */
static void join(struct ws_led *l, int s, uint64_t peers, int sent)
{
    uint64_t received = (l->peers[s] & ~l->sent[s]) | (sent ? 0 : peers);
    l->peers[s] |= peers;
    l->sent[s] = l->peers[s] & ~received;
}

/* Drop the regions of slots gone (in no section's mask any more); the others keep their
 * order. */
static void compact(struct ws_led *l, unsigned gone)
{
    int n = __builtin_ctz(gone), nreg = l->nreg;
    for (int r = n + 1; r < nreg; r++)
        if (!(gone >> r & 1))
            l->reg[n++] = l->reg[r];
    l->nreg = (uint8_t)n;
    /* the masks close up likewise: above each slot gone, the highest first, one down (each
     * byte on its own: no bit crosses into the byte below) */
    uint32_t w = slot_word(l);
    for (unsigned g = gone; g;) {
        unsigned top = 1u << (31 - __builtin_clz(g));
        uint32_t below = EACH_SECTION(top - 1);
        g ^= top;
        w = (w & below) | (w >> 1 & ~below & EACH_SECTION(0x7F));
    }
    set_slot_word(l, w);
}

/* Section i (>= 1) joins section i - 1: its ranks then begin there, and take i - 1's time
 * as if it came after their synchronisation. */
static void merge(struct ws_led *l, int i)
{
    /* join(i - 1, the ranks i received from, 0), then join(i - 1, those it sent to, 1): the
     * second keeps the first's received ones */
    uint64_t received = (l->peers[i - 1] & ~l->sent[i - 1]) | (l->peers[i] & ~l->sent[i]);
    l->peers[i - 1] |= l->peers[i] | l->sent[i];
    l->sent[i - 1] = l->peers[i - 1] & ~received;
    l->sec_t[i - 1] += l->sec_t[i];
    /* a key is in a section at most once: a region of section i whose key section i - 1 holds
     * adds to it and goes (adjacent sections of a loop share no key) */
    unsigned prev = l->slots[i - 1], cur = l->slots[i], gone = 0;
    for (unsigned m = cur; m; m &= m - 1) {
        int r = __builtin_ctz(m);
        uint64_t key = l->reg[r].key;
        unsigned p = prev;
        while (p && l->reg[__builtin_ctz(p)].key != key)
            p &= p - 1;
        if (p) {
            l->reg[__builtin_ctz(p)].t += l->reg[r].t;
            if (l->reg[r].t < 0)
                l->floor = -HUGE_VAL;
            gone |= 1u << r;
        }
    }
    int nsec = l->nsec;
    l->slots[i - 1] = (uint8_t)(prev | (cur & ~gone));
    for (int s = i; s + 1 < nsec; s++) {
        l->slots[s] = l->slots[s + 1];
        l->peers[s] = l->peers[s + 1];
        l->sent[s] = l->sent[s + 1];
        l->sec_t[s] = l->sec_t[s + 1];
    }
    l->nsec = (uint8_t)(nsec - 1);
    if (gone)
        compact(l, gone);
}

/* Does section i hold a key that section i - 1 holds too? */
static int shares_key(const struct ws_led *l, int i)
{
    for (unsigned m = l->slots[i]; m; m &= m - 1)
        for (unsigned p = l->slots[i - 1]; p; p &= p - 1)
            if (l->reg[__builtin_ctz(m)].key == l->reg[__builtin_ctz(p)].key)
                return 1;
    return 0;
}

/* The section among 1..last to merge into the one before it (its ranks then take that one's
 * time too): the one whose preceding section is the smallest, of those sharing a key with it
 * when shared (a slot must come free); 0 when none qualifies. */
static int cheapest_merge(const struct ws_led *l, int last, int shared)
{
    int best = 0;
    for (int i = 1; i <= last; i++)
        if ((!shared || shares_key(l, i)) && (!best || l->sec_t[i - 1] < l->sec_t[best - 1]))
            best = i;
    return best;
}

void ws_led_evict(struct ws_led *l, uint64_t key, double t)
{
    /* A region of the newest section is in every rank's interval, one of an older section
     * only in those of ranks synchronised before it: a loop whose sections repeat its keys
     * (a pipeline sending each period) filled the slots with the older copies, and a new
     * region no larger than they dropped out of the next wait's causes (2 ms of a 20 ms
     * period: 6% of its waits, not 10%). Two older sections with a key in common merge
     * first: no time is lost, only the cut between them. */
    int later = cheapest_merge(l, l->nsec - 2, 1); /* an older section: not the newest */
    if (later) {
        merge(l, later); /* the slots of the keys the two shared come free */
        ws_led_take_slot(l, key, t);
        return;
    }
    int min = 0, nreg = l->nreg;
    for (int i = 1; i < nreg; i++)
        if (l->reg[i].t < l->reg[min].t)
            min = i;
    /* the smallest, whether it goes or stays, bounds the regions from below */
    l->floor = l->reg[min].t;
    if (!(t > l->reg[min].t))
        return;
    /* (the bytes of sections past nsec are never read) */
    set_slot_word(l, slot_word(l) & ~EACH_SECTION(1u << min));
    l->slots[l->nsec - 1] |= (uint8_t)(1u << min);
    l->reg[min] = (struct ws_reg){key, t};
}

void ws_led_sync(struct ws_led *l, uint64_t peers, int sent)
{
    int n = l->nsec;
    if (!(l->sec_t[n - 1] > 0)) { /* nothing since the newest section began: it begins here */
        join(l, n - 1, peers, sent);
        return;
    }
    if (n == WS_SECS) {
        merge(l, cheapest_merge(l, n - 1, 0));
        n--;
    }
    l->slots[n] = 0;
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
    unsigned sel = 0;
    for (int s = from; s < l->nsec; s++) {
        *total += l->sec_t[s];
        sel |= l->slots[s];
    }
    int n = 0;
    if (from == l->nsec - 1) { /* one section: its keys are distinct */
        for (; sel; sel &= sel - 1)
            out[n++] = l->reg[__builtin_ctz(sel)];
        return n;
    }
    for (; sel; sel &= sel - 1) {
        const struct ws_reg *r = &l->reg[__builtin_ctz(sel)];
        int k = 0;
        while (k < n && out[k].key != r->key)
            k++;
        if (k < n)
            out[k].t += r->t;
        else
            out[n++] = *r;
    }
    return n;
}
