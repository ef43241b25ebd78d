/* Wait states, layer 3 of 5: where records travel. The shadow communicators (comm.c), their
 * topology copies (topo.c), and the batched exchanges of blocking collectives (batch.c). */
#ifndef TARDY_WS_EXCHANGE_H
#define TARDY_WS_EXCHANGE_H

#include "ws_record.h"

/* ---- shadow communicators (comm.c) ---- */
struct ws_comm *ws_comm_find(MPI_Comm comm);
/* A private copy of comm with the same ranks (rank: this rank's in comm), made collectively;
 * MPI_COMM_NULL when the library cannot make one. */
MPI_Comm ws_split(MPI_Comm comm, int rank);
/* Create the shadow of comm (collective over comm). Returns 0 when all ranks have one. */
int ws_comm_add(MPI_Comm comm);
void ws_comm_remove(MPI_Comm comm);
/* The shadow and answer communicators of shadow number gen of comm: the live ones, or those
 * kept after comm was freed with receives pending. Returns 0 (live), 1 (kept: comm is no
 * longer a valid handle) or -1 (gone). */
int ws_comm_pair(MPI_Comm comm, unsigned gen, MPI_Comm *shadow, MPI_Comm *ack);
/* A piggyback of shadow number gen was taken: kept shadows go once no receive needs them. */
void ws_comm_taken(unsigned gen);
void ws_comm_fini(void);
void ws_comm_each(void (*fn)(struct ws_comm *sc));   /* every live one (at finalize) */
struct ws_posted;
/* A matched probe's message m is on comm and has the place posted among receives (recvq.c);
 * returns -1 when the map is full. */
int ws_msgmap_put(MPI_Message m, MPI_Comm comm, struct ws_posted *posted);
MPI_Comm ws_msgmap_take(MPI_Message m, struct ws_posted **posted);

/* ---- batched exchanges of blocking collectives (batch.c) ---- */
struct ws_batch *ws_batch_new(MPI_Comm comm);
/* Queue this rank's part of blocking collective c on sc; a full batch is exchanged at once
 * (collective: returns 1). */
int ws_batch_add(struct ws_thread *w, struct ws_comm *sc, struct ev_call *c, int pattern,
                 int root);
/* The communicator goes away (collective): its open batch is exchanged nonblocking, on the
 * shadow communicator, which the batch then owns (sc->shadow becomes MPI_COMM_NULL). */
void ws_batch_close(struct ws_comm *sc);
/* Finish closing exchanges (block: all of them), recorded in w's tables. */
void ws_batch_drain(struct ws_thread *w, int block);

/* ---- the shadow of a communicator with a topology (topo.c) ---- */
/* Collective over comm: when comm has a topology, replace its new shadow by one with the
 * same neighbours (n_in: this rank's in-neighbours, buf: room for their records; -1 and
 * NULL when comm has none or the copy failed). */
void ws_topo_shadow(MPI_Comm comm, MPI_Comm *shadow, int *n_in, struct ws_msg **buf);

#endif
