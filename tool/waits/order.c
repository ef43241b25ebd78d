/* Late Sender, wrong order (Scalasca's "Messages in Wrong Order"): a Late Sender wait for a
 * message M is in the wrong order when this thread later receives a message sent before M
 * (its send entered earlier on the corrected clocks): the receiver waited for M while an
 * earlier message, from another sender or with another tag, was on its way or already there.
 * Each thread holds back its last WS_HELD Late Sender waits (with their root causes computed
 * when they happened); a received message moves the held waits it shows to be in the wrong
 * order to late_sender_wrong_order; the oldest is recorded as late_sender to make room. */
#include "ws_record.h"

#include <math.h>

static void record(struct ws_thread *w, struct ws_held *h, int pattern)
{
    ws_record_shares(w, h->site, pattern, h->wait, h->rank, h->sh, h->nsh);
    h->nsh = 0;
}

void ws_ls_hold(struct ws_thread *w, uint64_t site, double wait, const struct ws_msg *m,
                const struct ws_led *led)
{
    struct ws_held *h = &w->held[w->held_next++ % WS_HELD];
    if (h->nsh)
        record(w, h, WS_LATE_SENDER);
    h->site = site;
    h->wait = wait;
    h->e_send = m->e;
    h->rank = m->rank;
    h->nsh = ws_shares(led, tardy_rank, wait, m, h->sh);
    if (m->e > w->held_max)
        w->held_max = m->e;
}

void ws_ls_reorder(struct ws_thread *w, double e_send)
{
    double max = -HUGE_VAL;
    for (int i = 0; i < WS_HELD; i++) {
        struct ws_held *h = &w->held[i];
        if (!h->nsh)
            continue;
        if (h->e_send > e_send)
            record(w, h, WS_LATE_SENDER_WO);
        else if (h->e_send > max)
            max = h->e_send;
    }
    w->held_max = max;
}

void ws_ls_flush(struct ws_thread *w)
{
    for (int i = 0; i < WS_HELD; i++)
        if (w->held[i].nsh)
            record(w, &w->held[i], WS_LATE_SENDER);
    w->held_max = -HUGE_VAL;
}
