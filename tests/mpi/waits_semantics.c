/* The program's data, statuses and counts must be the same with and without tardy's
 * wait-state protocol: wildcards, probes and matched probes with Get_count, persistent
 * requests, Waitany/Waitsome/Testany/Testsome, Sendrecv_replace, MPI_PROC_NULL, two
 * communicators with the same tag, an inter-communicator, cancel, Ssend, freed requests,
 * MPI_Pcontrol(0) on one side only. Rank 0 prints every rank's record in rank order. */
#include <mpi.h>
/* GCC mistakes MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC 8192

static char rec[REC];
static size_t used;
static int rank, size, next, prev;

static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(rec + used, REC - used, fmt, ap);
    va_end(ap);
    if (n > 0 && used + (size_t)n < REC)
        used += (size_t)n;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void wildcards(void)
{
    int buf[16] = {0}, data[2][16];
    MPI_Request r[2];
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 16; i++)
            data[k][i] = rank * 100 + k * 10 + i;
        MPI_Isend(data[k], rank + k + 1, MPI_INT, 0, rank * 10 + k + 1, MPI_COMM_WORLD, &r[k]);
    }
    if (rank == 0) {
        int got[64], n = 0;
        for (int m = 0; m < 2 * size; m++) {
            MPI_Status st;
            int count;
            MPI_Recv(buf, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            if (n < 64 && buf[count - 1] == st.MPI_SOURCE * 100 + (st.MPI_TAG % 10 - 1) * 10 +
                                               count - 1)
                got[n++] = st.MPI_SOURCE * 10000 + st.MPI_TAG * 100 + count;
        }
        qsort(got, (size_t)n, sizeof *got, cmp_int);
        note("wild");
        for (int i = 0; i < n; i++)
            note(" %d", got[i]);
        note("\n");
    }
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* no later message meets the wildcard receives */
}

static void probes(void)
{
    double out[8] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5}, in[8] = {0};
    MPI_Request r[3];
    MPI_Isend(out, rank % 4 + 3, MPI_DOUBLE, next, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, rank % 4 + 2, MPI_DOUBLE, next, 8, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(out, rank % 4 + 1, MPI_DOUBLE, next, 9, MPI_COMM_WORLD, &r[2]);
    MPI_Status st;
    int count, flag = 0;
    MPI_Probe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    MPI_Recv(in, count, MPI_DOUBLE, st.MPI_SOURCE, 7, MPI_COMM_WORLD, &st);
    note("probe src %d count %d last %.1f\n", st.MPI_SOURCE, count, in[count - 1]);
    MPI_Message msg;
    MPI_Mprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    MPI_Mrecv(in, count, MPI_DOUBLE, &msg, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    note("mprobe src %d tag %d count %d\n", st.MPI_SOURCE, st.MPI_TAG, count);
    while (!flag)
        MPI_Improbe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &msg, &st);
    MPI_Request ir;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    MPI_Imrecv(in, count, MPI_DOUBLE, &msg, &ir);
    MPI_Wait(&ir, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    note("improbe src %d tag %d count %d\n", st.MPI_SOURCE, st.MPI_TAG, count);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
}

static void persistent(void)
{
    int out = rank, in = -1, sum = 0;
    MPI_Request r[2];
    MPI_Send_init(&out, 1, MPI_INT, next, 11, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(&in, 1, MPI_INT, prev, 11, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < 3; i++) {
        out = rank * 10 + i;
        if (i == 0) {
            MPI_Start(&r[1]);
            MPI_Start(&r[0]);
        } else {
            MPI_Startall(2, r);
        }
        MPI_Status st[2];
        MPI_Waitall(2, r, st);
        sum += in;
        note("persistent %d src %d tag %d\n", in, st[1].MPI_SOURCE, st[1].MPI_TAG);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    note("persistent sum %d\n", sum);
}

static void completions(void)
{
    int in[3] = {-1, -1, -1}, out[3] = {rank, rank + 100, rank + 200};
    MPI_Request rr[3], sr[3];
    for (int i = 0; i < 3; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, prev, 20 + i, MPI_COMM_WORLD, &rr[i]);
    for (int i = 2; i >= 0; i--)
        MPI_Isend(&out[i], 1, MPI_INT, next, 20 + i, MPI_COMM_WORLD, &sr[i]);
    int idx, flag = 0, outcount, indices[3], seen = 0;
    MPI_Status st, sts[3];
    MPI_Waitany(3, rr, &idx, &st);
    /* which one completes first is up to the library: check its status and data agree */
    note("waitany consistent %d\n", st.MPI_SOURCE == prev && idx == st.MPI_TAG - 20 &&
                                         in[idx] == prev + 100 * idx);
    seen++;
    while (seen < 2) {
        MPI_Testany(3, rr, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED)
            seen++;
    }
    while (seen < 3) {
        MPI_Testsome(3, rr, &outcount, indices, sts);
        if (outcount != MPI_UNDEFINED)
            seen += outcount;
    }
    MPI_Waitsome(3, sr, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Waitall(3, sr, MPI_STATUSES_IGNORE);
    note("completions %d %d %d\n", in[0], in[1], in[2]);
}

static void replace_and_null(void)
{
    int v = rank * 7;
    MPI_Status st;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, next, 40, prev, 40, MPI_COMM_WORLD, &st);
    note("replace %d src %d tag %d\n", v, st.MPI_SOURCE, st.MPI_TAG);
    int x = 5, y = 9, count = -7;
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    note("procnull src %d tag %d count %d y %d\n", st.MPI_SOURCE, st.MPI_TAG, count, y);
    MPI_Request r, r43;
    int z = -1;
    MPI_Irecv(&z, 1, MPI_INT, prev, 43, MPI_COMM_WORLD, &r43);
    MPI_Isend(&x, 1, MPI_INT, next, 42, MPI_COMM_WORLD, &r);
    MPI_Sendrecv(&x, 1, MPI_INT, next, 43, &y, 1, MPI_INT, MPI_PROC_NULL, 43, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    note("sendrecv procnull src %d count %d\n", st.MPI_SOURCE, count);
    MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 42, &y, 1, MPI_INT, prev, 42, MPI_COMM_WORLD, &st);
    note("sendrecv from %d: %d\n", st.MPI_SOURCE, y);
    MPI_Wait(&r43, &st);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    note("z %d\n", z);
}

/* Same tag on two communicators, received in the other order. */
static void two_comms(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int a = rank + 1000, b = rank + 2000, ra = 0, rb = 0;
    MPI_Request r[2];
    MPI_Isend(&a, 1, MPI_INT, next, 30, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&b, 1, MPI_INT, next, 30, dup, &r[1]);
    MPI_Recv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, 30, dup, MPI_STATUS_IGNORE);
    MPI_Recv(&ra, 1, MPI_INT, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    note("comms world %d dup %d\n", ra, rb);
    MPI_Comm_free(&dup);
}

static void intercomm(void)
{
    if (size < 2)
        return;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 50, &inter);
    int lrank, rsize, v = rank, got = -1, sum = 0;
    MPI_Comm_rank(half, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Status st;
    if (lrank < rsize) {
        MPI_Sendrecv(&v, 1, MPI_INT, lrank, 51, &got, 1, MPI_INT, lrank, 51, inter, &st);
        note("inter got %d src %d\n", got, st.MPI_SOURCE);
    }
    MPI_Barrier(inter);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    note("inter sum %d\n", sum);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void cancel_ssend_free(void)
{
    int never = 0, flag = -1, v = rank, w = -1;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    note("cancelled %d\n", flag);
    MPI_Request s;
    MPI_Issend(&v, 1, MPI_INT, next, 60, MPI_COMM_WORLD, &s);
    MPI_Recv(&w, 1, MPI_INT, prev, 60, MPI_COMM_WORLD, &st);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    note("issend %d\n", w);
    if (size > 1) {
        if (rank % 2 == 0 && rank + 1 < size)
            MPI_Ssend(&v, 1, MPI_INT, rank + 1, 61, MPI_COMM_WORLD);
        else if (rank % 2 == 1)
            MPI_Recv(&w, 1, MPI_INT, rank - 1, 61, MPI_COMM_WORLD, &st);
        note("ssend %d\n", w);
    }
    MPI_Isend(&v, 1, MPI_INT, next, 62, MPI_COMM_WORLD, &s);
    MPI_Request_free(&s);
    MPI_Recv(&w, 1, MPI_INT, prev, 62, MPI_COMM_WORLD, &st);
    note("freed send %d\n", w);
    MPI_Barrier(MPI_COMM_WORLD); /* the freed send's buffer stays valid until here */
}

/* Synchronous sends whose answer arrives after their request completed: persistent ones
 * started three times, an Issend completed by a Test loop, one freed while active, one into
 * a receive freed while active. */
static void sync_sends(void)
{
    int out = rank, in = -1, flag = 0, v = rank, w = -1;
    MPI_Request r[2], s;
    MPI_Status st[2];
    MPI_Ssend_init(&out, 1, MPI_INT, next, 80, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(&in, 1, MPI_INT, prev, 80, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < 3; i++) {
        out = rank * 100 + i;
        MPI_Startall(2, r);
        MPI_Waitall(2, r, st);
        note("ssend_init %d src %d tag %d\n", in, st[1].MPI_SOURCE, st[1].MPI_TAG);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    MPI_Issend(&v, 1, MPI_INT, next, 81, MPI_COMM_WORLD, &s);
    MPI_Irecv(&w, 1, MPI_INT, prev, 81, MPI_COMM_WORLD, &r[0]);
    for (int idx; !flag;)
        MPI_Testany(1, &s, &idx, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], &st[0]);
    note("issend test %d src %d\n", w, st[0].MPI_SOURCE);
    MPI_Issend(&v, 1, MPI_INT, next, 82, MPI_COMM_WORLD, &s);
    MPI_Request_free(&s);
    MPI_Recv(&w, 1, MPI_INT, prev, 82, MPI_COMM_WORLD, &st[0]);
    note("freed issend %d\n", w);
    /* A synchronous send into a receive freed while active: the send completes once matched,
     * the receiver cannot tell tardy when it was posted (counted as unmeasured). */
    MPI_Irecv(&in, 1, MPI_INT, prev, 83, MPI_COMM_WORLD, &r[0]);
    MPI_Request_free(&r[0]);
    MPI_Ssend(&v, 1, MPI_INT, next, 83, MPI_COMM_WORLD);
    note("ssend into a freed receive\n");
    MPI_Barrier(MPI_COMM_WORLD); /* the freed send's buffer stays valid until here */
}

/* One side counts, the other does not: the protocol must still pair the messages. */
static void pcontrol_one_side(void)
{
    int v = rank, w = -1;
    if (rank % 2 == 0)
        MPI_Pcontrol(0);
    MPI_Sendrecv(&v, 1, MPI_INT, next, 70, &w, 1, MPI_INT, prev, 70, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2 == 0)
        MPI_Pcontrol(1);
    MPI_Sendrecv(&v, 1, MPI_INT, next, 71, &w, 1, MPI_INT, prev, 71, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    note("pcontrol %d\n", w);
}

/* A communicator freed by rank 0 before it sends on another, and by rank 1 only after it
 * received that: MPI_Comm_free need not synchronise. Rank 0 has a receive on the freed one
 * whose timestamp is still in rank 1's batch, which leaves at rank 1's free. */
static void free_order(void)
{
    MPI_Comm c;
    int v = rank + 1, w = -1;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, c); /* its collectives' batch too */
    if (rank == 1)
        MPI_Send(&v, 1, MPI_INT, 0, 72, c);
    else if (rank == 0 && size > 1)
        MPI_Recv(&w, 1, MPI_INT, 1, 72, c, MPI_STATUS_IGNORE);
    if (rank == 1) {
        MPI_Recv(&w, 1, MPI_INT, 0, 73, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_free(&c);
    } else {
        MPI_Comm_free(&c);
        if (rank == 0 && size > 1)
            MPI_Send(&v, 1, MPI_INT, 1, 73, MPI_COMM_WORLD);
    }
    note("free order %d\n", w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    wildcards();
    probes();
    persistent();
    completions();
    replace_and_null();
    two_comms();
    intercomm();
    cancel_ssend_free();
    sync_sends();
    pcontrol_one_side();
    free_order();
    char *all = rank == 0 ? malloc((size_t)size * REC) : NULL;
    MPI_Gather(rec, REC, MPI_CHAR, all, REC, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            printf("== rank %d\n%s", r, all + (size_t)r * REC);
        printf("done\n");
    }
    free(all);
    MPI_Finalize();
    return 0;
}
