/* Wait states, layer 3 of 5: where records travel. The shadow communicators (comm.c), their
 * topology (topo.c), and the batched exchanges of blocking collectives (batch.c), which keep
 * and send ledgers as words (ledger_words.c). */
#ifndef TARDY_WS_EXCHANGE_H
#define TARDY_WS_EXCHANGE_H

#include "ws_record.h"

/* ---- the topology of a communicator and its shadow (topo.c) ---- */
/* This rank's in-neighbours in comm's topology (local); -1 when comm has none. */
int ws_topo_in(MPI_Comm comm);

/* ---- shadow communicators (comm.c) ---- */
/* comm's shadow, NULL when it has none. The first look after comm's creation finishes making
 * the copies (waiting, yielding, until every rank of comm has entered MPI since). */
struct ws_comm *ws_comm_find(MPI_Comm comm);
/* A private copy of intra-communicator comm with the same ranks, made collectively (blocking)
 * from its group, no attributes copied; MPI_COMM_NULL when the library cannot make one. */
MPI_Comm ws_comm_copy(MPI_Comm comm);
/* Start making the shadow of new communicator comm (collective over comm, nonblocking): as
 * duplicates of comm itself, which has no attributes yet, or, when comm is a duplicate of
 * dup_of (MPI_COMM_NULL: it is not), of dup_of's shadow, which has the same ranks and
 * topology and no attributes. */
void ws_comm_add(MPI_Comm comm, MPI_Comm dup_of);
/* ws_comm_add in two steps, for a caller that agrees in a reduction of its own: begin
 * reserves and allocates (local; ok: this rank's part of the agreement, a MIN over comm's
 * ranks), start starts the copies of from (comm or dup_of's shadow) with the agreement all
 * (collective; all NULL: agreed among the copies), drop gives back without starting any
 * (every rank). */
struct ws_comm_new {
    uint64_t key;
    struct ws_comm *slot;
    struct ws_batch *batch;
    struct ws_msg *nbuf;
    int nbr_in, inter, size, me;
    int alone;      /* an intra-communicator of one rank: no copies (ws_comm_start does nothing) */
    int ok[3];      /* can make it; spans MPI_COMM_WORLD; has room for its neighbours' records */
};
void ws_comm_begin(MPI_Comm comm, struct ws_comm_new *n);
void ws_comm_start(MPI_Comm from, struct ws_comm_new *n, const int all[3]);
void ws_comm_drop(struct ws_comm_new *n);
/* comm is freed: after ws_comm_find(comm) (its copies made), give its slot back; its shadows
 * are kept while receives on them are posted, or queued in any thread (they still wait for
 * records: MPI gives a freed shadow's context id to a new communicator, where a record sent
 * on the old one would arrive as the new one's message). */
void ws_comm_remove(MPI_Comm comm);
/* d receives on shadow number gen joined (+) or left (-) a thread's queue of takes. */
void ws_comm_queued(unsigned gen, int d);
/* The shadow and answer communicators of shadow number gen of comm: the live ones, or those
 * kept after comm was freed with receives pending. Returns 0 (live), 1 (kept: comm is no
 * longer a valid handle) or -1 (gone). */
int ws_comm_pair(MPI_Comm comm, unsigned gen, MPI_Comm *shadow, MPI_Comm *ack);
/* Piggybacks were taken: the kept shadows go that no posted or queued receive needs any more. */
void ws_comm_unkeep(void);
void ws_comm_fini(void);
/* A closing exchange on shadow is done: 1 when the shadow is still its communicator's or kept
 * for receives (then freed with them), 0 when the caller frees it. */
int ws_comm_unlend(MPI_Comm shadow);
/* Receive and drop the batches of timestamps still in on every shadow (at finalize, once
 * every rank has sent its batches and taken what it waits for). */
void ws_comm_drop_batches(void);
/* every live one, their copies made (at finalize: collective) */
void ws_comm_each(void (*fn)(struct ws_comm *sc));
struct ws_posted;
/* A matched probe's message m is on comm and has the place posted among receives (recvq.c);
 * returns -1 when the map is full. */
int ws_msgmap_put(MPI_Message m, MPI_Comm comm, struct ws_posted *posted);
MPI_Comm ws_msgmap_take(MPI_Message m, struct ws_posted **posted);

/* ---- a ledger as 64-bit words (ledger_words.c) ---- */
#define WS_LED_WORDS (1 + 2 * WS_K + 2 * WS_SECS - 1)   /* the most a ledger takes */
/* Ledger l as words into out (what a wait's root causes read of it); returns how many. */
int ws_led_words(const struct ws_led *l, int64_t out[WS_LED_WORDS]);
/* The ledger of words in (an empty one if they are none's). */
void ws_led_unwords(const int64_t *in, struct ws_led *l);

/* ---- batched exchanges of blocking collectives (batch.c) ---- */
struct ws_batch *ws_batch_new(MPI_Comm comm);
/* Queue this rank's part of blocking collective c on sc; a full batch finishes the last
 * batch's exchange and starts its own (collective: returns 1). */
int ws_batch_add(struct ws_thread *w, struct ws_comm *sc, struct ev_call *c, int pattern,
                 int root);
/* The communicator goes away (collective): the exchange in flight is finished, and the open
 * batch with the held calls is exchanged nonblocking, on the shadow communicator, which the
 * batch then owns (sc->shadow becomes MPI_COMM_NULL). */
void ws_batch_close(struct ws_comm *sc);
/* Finish closing exchanges (block: all of them), recorded in w's tables. */
void ws_batch_drain(struct ws_thread *w, int block);

#endif
