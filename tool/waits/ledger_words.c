/* A ledger as the few 64-bit words the batches keep and exchange (batch.c): a head word
 * (region count, section count, the sections' slot masks), then each region's key and time,
 * the first section's time, and each later section's time and rank mask (the first begins at
 * a synchronisation with every rank). Only what a wait's root causes read (ws_shares: the
 * regions since a rank's last synchronisation with the other side, and their total): not the
 * floor of a full ledger, nor which ranks a section only sent to. A ledger of one region in
 * one section, the common case between collectives, is 4 words where struct ws_led is 30.
 * Pure arithmetic: no MPI. */
#include <stddef.h>
#include <string.h>

#include "ws_exchange.h"

static int64_t bits_of(double d)
{
    int64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

static double double_of(int64_t v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* The head word holds the ledger's first bytes, its counts and the sections' slot masks (those
 * of sections beyond its count are never read), copied as bytes both ways. */
#define HEAD_BYTES (offsetof(struct ws_led, slots) + WS_SECS)
_Static_assert(offsetof(struct ws_led, nsec) < offsetof(struct ws_led, slots) &&
                   HEAD_BYTES <= sizeof(int64_t),
               "the counts and slot masks open the ledger and fit one word");

int ws_led_words(const struct ws_led *l, int64_t out[WS_LED_WORDS])
{
    int nreg = l->nreg, nsec = l->nsec, n = 1;
    int64_t head = 0;
    memcpy(&head, l, HEAD_BYTES);
    out[0] = head;
    for (int i = 0; i < nreg; i++) {
        out[n++] = (int64_t)l->reg[i].key;
        out[n++] = bits_of(l->reg[i].t);
    }
    out[n++] = bits_of(l->sec_t[0]);
    for (int s = 1; s < nsec; s++) {
        out[n++] = bits_of(l->sec_t[s]);
        out[n++] = (int64_t)l->peers[s];
    }
    return n;
}

void ws_led_unwords(const int64_t *in, struct ws_led *l)
{
    memcpy(l, in, HEAD_BYTES);
    int nreg = l->nreg, nsec = l->nsec, n = 1;
    if (nreg > WS_K || nsec < 1 || nsec > WS_SECS) {
        ws_led_reset(l); /* not a ledger's words: an empty one */
        return;
    }
    for (int i = 0; i < nreg; i++) {
        l->reg[i].key = (uint64_t)in[n++];
        l->reg[i].t = double_of(in[n++]);
    }
    l->floor = -HUGE_VAL; /* not known */
    l->peers[0] = ~0ull;
    l->sent[0] = 0;
    l->sec_t[0] = double_of(in[n++]);
    for (int s = 1; s < nsec; s++) {
        l->sec_t[s] = double_of(in[n++]);
        l->peers[s] = (uint64_t)in[n++];
        l->sent[s] = 0;
    }
}
