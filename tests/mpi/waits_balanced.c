/* Balanced runs with ground truth: every rank does the same work before each operation, so
 * what waiting there is comes from the machine (scheduler, cores shared). Each rank notes its
 * own enter and leave times around the operation (all ranks of a test share one host clock);
 * rank 0 prints the true waiting summed over ranks and the MPI time of the calls, as
 * "balanced MODE TRUE_WAIT_SECONDS MPI_SECONDS".
 * usage: waits_balanced allreduce|halo|pingpong ITERATIONS DOUBLES WORK_SECONDS */
#include <mpi.h>
/* GCC mistakes MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "truth.h"

static int rank, size;

/* Wait at N×N: min(latest enter, my leave) - my enter. */
static void allreduce(int n, int count, double work, double *wait, double *mpi)
{
    double *x = calloc(count, sizeof *x), *y = calloc(count, sizeof *y);
    double *e = calloc(n, sizeof *e), *l = calloc(n, sizeof *l), *late = calloc(n, sizeof *late);
    for (int i = 0; i < n; i++) {
        busy(work);
        e[i] = now();
        MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @site b_ar */
        l[i] = now();
    }
    MPI_Allreduce(e, late, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        *wait += clampw((late[i] < l[i] ? late[i] : l[i]) - e[i]);
        *mpi += l[i] - e[i];
    }
    free(x);
    free(y);
    free(e);
    free(l);
    free(late);
}

/* Late Sender in the Waitall completing a receive from each ring neighbour: the largest of
 * min(the neighbour's send enter, my leave) - my enter. */
static void halo(int n, int count, double work, double *wait, double *mpi)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *buf = calloc(4 * (size_t)count, sizeof *buf);
    double *t = calloc(7 * (size_t)n, sizeof *t);
    double *to_r = t, *to_l = t + n, *e = t + 2 * n, *l = t + 3 * n, *from_l = t + 4 * n,
           *from_r = t + 5 * n, *post = t + 6 * n;
    for (int i = 0; i < n; i++) {
        MPI_Request r[4];
        busy(work);
        post[i] = now();
        MPI_Irecv(buf, count, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]); /* @site h_irecv */
        MPI_Irecv(buf + count, count, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
        to_r[i] = now();
        MPI_Isend(buf + 2 * count, count, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]); /* @site h_isend */
        to_l[i] = now();
        MPI_Isend(buf + 3 * count, count, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
        e[i] = now();
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE); /* @site h_wait */
        l[i] = now();
    }
    /* the neighbours' send times */
    MPI_Sendrecv(to_r, n, MPI_DOUBLE, right, 2, from_l, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(to_l, n, MPI_DOUBLE, left, 3, from_r, n, MPI_DOUBLE, right, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) {
        double s = from_l[i] > from_r[i] ? from_l[i] : from_r[i];
        *wait += clampw((s < l[i] ? s : l[i]) - e[i]);
        *mpi += l[i] - post[i];
    }
    free(buf);
    free(t);
}

/* Ranks in pairs (2k, 2k+1); the even one sends first. Late Sender in each receive. */
static void pingpong(int n, int count, double work, double *wait, double *mpi)
{
    int peer = rank ^ 1, even = !(rank & 1);
    double *buf = calloc(count, sizeof *buf), *t = calloc(5 * (size_t)n, sizeof *t);
    double *s = t, *e = t + n, *l = t + 2 * n, *ps = t + 3 * n, *sl = t + 4 * n;
    if (peer >= size) { /* an odd rank count: the last rank only computes */
        for (int i = 0; i < n; i++)
            busy(work);
        free(buf);
        free(t);
        return;
    }
    for (int i = 0; i < n; i++) {
        busy(work);
        if (even) {
            s[i] = now();
            MPI_Send(buf, count, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD); /* @site p_send */
            sl[i] = e[i] = now();
            MPI_Recv(buf, count, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site p_recv */
            l[i] = now();
        } else {
            e[i] = now();
            MPI_Recv(buf, count, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site p_recv2 */
            s[i] = l[i] = now();
            MPI_Send(buf, count, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD); /* @site p_send2 */
            sl[i] = now();
        }
    }
    MPI_Sendrecv(s, n, MPI_DOUBLE, peer, 2, ps, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) {
        *wait += clampw((ps[i] < l[i] ? ps[i] : l[i]) - e[i]);
        *mpi += (l[i] - e[i]) + (sl[i] - s[i]);
    }
    free(buf);
    free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 5) {
        if (!rank)
            fprintf(stderr, "usage: %s allreduce|halo|pingpong N DOUBLES WORK\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int n = atoi(argv[2]), count = atoi(argv[3]);
    double work = atof(argv[4]), mine[2] = {0, 0}, all[2] = {0, 0};
    if (!strcmp(argv[1], "allreduce"))
        allreduce(n, count, work, &mine[0], &mine[1]);
    else if (!strcmp(argv[1], "halo"))
        halo(n, count, work, &mine[0], &mine[1]);
    else
        pingpong(n, count, work, &mine[0], &mine[1]);
    MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("balanced %s %.9f %.9f\n", argv[1], all[0], all[1]);
    MPI_Finalize();
    return 0;
}
