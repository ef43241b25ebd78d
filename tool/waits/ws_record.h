/* Wait states, layer 2 of 5: the ledger and the causes. Each thread's state, its ledger of
 * regions since the last synchronisation point, a wait considered and recorded with its
 * root-cause shares (thread.c), Late Sender waits held until their order is known
 * (order.c), and the groups of one call's parts (group.c). */
#ifndef TARDY_WS_RECORD_H
#define TARDY_WS_RECORD_H

#include "ws_data.h"

/* ---- groups: the parts of one call's wait known only later (group.c) ---- */
/* A part of the current call's wait will come later: its group (NULL: out of memory, the
 * part is recorded alone). */
struct ws_group *ws_group_join(struct ws_thread *w);
/* One part of group g is in (wait 0: none); the last records the largest. */
void ws_group_put(struct ws_thread *w, struct ws_group *g, int pattern, double wait,
                  const struct ws_msg *m);

/* ---- per-thread state, ledger and recording (thread.c) ---- */
extern _Thread_local struct ws_thread *ws_self;   /* NULL until ws_me() made it */
struct ws_thread *ws_me_make(void);   /* ws_me's first call in a thread */
/* This thread's state, created on first use (NULL: out of memory). */
static inline struct ws_thread *ws_me(void)
{
    return __builtin_expect(ws_self != NULL, 1) ? ws_self : ws_me_make();
}
/* m: this rank's record with enter time e and w's ledger (w NULL: none). */
void ws_fill(struct ws_thread *w, struct ws_msg *m, double e);

/* A wait of pattern for call c (E, L corrected) against late record m. */
void ws_consider(struct ws_thread *w, int pattern, double e, double l, const struct ws_msg *m);

void ws_record(struct ws_thread *w, uint64_t site, int pattern, double wait,
               const struct ws_msg *m);
void ws_record_shares(struct ws_thread *w, uint64_t site, int pattern, double wait, int rank,
                      const struct ws_share *sh, int n);
/* ws_record against the ledger led (this rank's in the waiting call) instead of the current
 * one. */
void ws_record_led(struct ws_thread *w, uint64_t site, int pattern, double wait,
                   const struct ws_msg *m, const struct ws_led *led);

void ws_for_each_thread(void (*fn)(struct ws_thread *w, void *arg), void *arg);
extern atomic_ullong ws_violations;   /* clock condition violations */
extern int ws_sample;   /* measure one in ws_sample collectives (fences, neighbourhood) */

/* ---- Late Sender, wrong order (order.c) ---- */
/* Hold a Late Sender wait, its causes against the ledger led (the oldest held one is
 * recorded as Late Sender to make room). */
void ws_ls_hold(struct ws_thread *w, uint64_t site, double wait, const struct ws_msg *m,
                const struct ws_led *led);
/* A message sent at e_send (corrected) was received: held waits for later sends were in
 * the wrong order. */
void ws_ls_reorder(struct ws_thread *w, double e_send);
static inline void ws_ls_check(struct ws_thread *w, double e_send)
{
    if (e_send < w->held_max)
        ws_ls_reorder(w, e_send);
}
/* Record every held wait as Late Sender (at finalize). */
void ws_ls_flush(struct ws_thread *w);

#endif
