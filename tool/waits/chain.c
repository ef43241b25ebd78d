/* Messages in a row: a sender's message to a rank cuts the sender's ledger (sections.c), so
 * the next message to it carries only the regions since. When one call of the receiver
 * completes both (a Waitall of many receives), the receiver had not received the first when
 * it began to wait for the second: that send was no synchronisation point for the wait, and
 * the regions before it are a cause too. The call keeps the regions each of its last
 * WS_CHAINS senders' messages carried, and a chained message takes them in. No MPI. */
#include "ws_data.h"

void ws_chain_add(struct ws_chain c[WS_CHAINS], int *n, struct ws_msg *m, int chained)
{
    int k = 0;
    while (k < *n && c[k].rank != m->rank)
        k++;
    if (k < *n && chained)
        for (int i = 0; i < c[k].nreg; i++)
            ws_led_add(&m->led, c[k].reg[i].key, c[k].reg[i].t);
    if (k == *n) { /* a new sender: a free slot, else the first one's */
        k = *n < WS_CHAINS ? (*n)++ : 0;
        c[k].rank = m->rank;
    }
    double total;
    c[k].nreg = ws_led_since(&m->led, -1, c[k].reg, &total, NULL);
}
