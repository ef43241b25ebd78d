/* Any number of sends may be outstanding before their receives, with wait states on too:
 * every rank sends N messages to itself (nonblocking and buffered, on MPI_COMM_WORLD and on
 * MPI_COMM_SELF) before receiving any; then rank 0 posts NBIG large nonblocking sends to rank 1,
 * which sleeps SLEEP_S first: MPI_Isend is local, so they must return long before rank 1
 * receives. Prints "ok" and rank 0's time in those Isends on rank 0, or what went wrong. */
#include <mpi.h>
/* GCC mistakes MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 500
#define NBIG 100
#define BIG 16384   /* ints: beyond the eager limits, so each send waits for its receive */
#define SLEEP_S 1

/* N sends of one int to this rank on comm (Isend, or Bsend into an attached buffer), then
 * their receives; returns the number of wrong values. */
static int to_self(MPI_Comm comm, int buffered)
{
    static int out[N], in[N];
    static MPI_Request req[N];
    int me, errs = 0;
    MPI_Comm_rank(comm, &me);
    for (int i = 0; i < N; i++) {
        out[i] = i;
        if (buffered)
            MPI_Bsend(&out[i], 1, MPI_INT, me, i, comm);
        else
            MPI_Isend(&out[i], 1, MPI_INT, me, i, comm, &req[i]);
    }
    for (int i = 0; i < N; i++) {
        MPI_Recv(&in[i], 1, MPI_INT, me, i, comm, MPI_STATUS_IGNORE);
        errs += in[i] != i;
    }
    if (!buffered)
        MPI_Waitall(N, req, MPI_STATUSES_IGNORE);
    return errs;
}

/* Rank 0's seconds in NBIG Isends of BIG ints each to rank 1, which sleeps first. */
static double isend_local(int rank)
{
    int *buf = calloc((size_t)NBIG * BIG, sizeof *buf);
    MPI_Request req[NBIG];
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < NBIG; i++)
            MPI_Isend(buf + (size_t)i * BIG, BIG, MPI_INT, 1, i, MPI_COMM_WORLD, &req[i]);
        t = MPI_Wtime() - t0;
        MPI_Waitall(NBIG, req, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        sleep(SLEEP_S);
        for (int i = 0; i < NBIG; i++)
            MPI_Irecv(buf + (size_t)i * BIG, BIG, MPI_INT, 0, i, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(NBIG, req, MPI_STATUSES_IGNORE);
    }
    free(buf);
    return t;
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0, all = 0, bsize = N * 4 * MPI_BSEND_OVERHEAD;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Buffer_attach(malloc((size_t)bsize), bsize);
    errs += to_self(MPI_COMM_WORLD, 0) + to_self(MPI_COMM_WORLD, 1);
    errs += to_self(MPI_COMM_SELF, 0) + to_self(MPI_COMM_SELF, 1);
    double t = size > 1 ? isend_local(rank) : 0;
    MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all)
        printf("%d wrong values\n", all);
    else if (rank == 0)
        printf("ok %.3f\n", t);
    MPI_Finalize();
    return 0;
}
