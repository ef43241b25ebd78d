/* Root causes over the pair's last synchronisation (H-CWP-DM, docs/design.md 3.6), with the
 * truth by construction. In each scenario a late rank computes region A (SPIN seconds),
 * exchanges a message with one other rank, computes region B (SPIN seconds), then all ranks
 * meet in a collective, ROUNDS times. A rank that exchanged the message with the late rank
 * synchronised with it there: its wait in the collective is B's alone. The others last
 * synchronised with it at the collective before: their wait is A's and B's, half each (the
 * waiting ranks ran neither region). Rank 0 prints, per scenario, the true cost of each
 * region summed over the waiting ranks, as "cause SCENARIO WAIT_MARKER TO_MARKER
 * FROM_MARKERS SECONDS" (FROM_MARKERS: comma-separated, the calls a region may begin at).
 * Scenarios (markers as in "@site" comments):
 *   barrier    the last rank sends to rank 0 (waiting in MPI_Recv) between A and B
 *   allreduce  the same with MPI_Allreduce
 *   to_late    rank 0 sends to the last rank, which receives between A and B
 *   alternate  the late rank alternates between the last rank and rank 0, each sending to the
 *              other
 *   pairs      (4 ranks or more) the last rank sends to rank 1 while rank 2 sends to rank 0:
 *              the collective's earliest and latest ranks exchange no message
 *   pipeline   send-only: even ranks send to the next rank, computing 90% of each period in
 *              one region and 10% in another (split by an MPI_Iprobe); the sender first
 *              computes PRE seconds after the collective, before its first send */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "truth.h"

#define ROUNDS 5
#define SPIN 0.04
#define PERIOD 0.02
#define PRE 0.1

static int rank, size, last;
static double x = 1, y;

/* A region's true cost: the markers of its end and of the calls it may begin at. */
struct cause {
    const char *to, *from;
    double t;
};

/* Sum the causes over the ranks and print them (rank 0). */
static void print(const char *scenario, const char *at, struct cause *c, int n)
{
    for (int i = 0; i < n; i++) {
        double sum;
        MPI_Reduce(&c[i].t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("cause %s %s %s %s %.9f\n", scenario, at, c[i].to, c[i].from, sum);
    }
}

/* This rank's share of the truth: its waits in the collective of each round (enter e,
 * leave l) against the latest enter, for the B region alone where it exchanged the round's
 * message with the late rank, else half each. Returns what the late rank itself waited: the
 * scheduler of an oversubscribed machine can stop a partner long enough to make it the latest
 * (tardy then rightly names the partner's region, which this truth does not know). */
static double share(const double *e, const double *l, const int *late, const int *partner,
                    struct cause *a, struct cause *b)
{
    double m[ROUNDS], late_waited = 0;
    MPI_Allreduce(e, m, ROUNDS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < ROUNDS; i++) {
        double w = clampw((m[i] < l[i] ? m[i] : l[i]) - e[i]);
        if (rank == late[i]) {
            late_waited += w;
        } else if (rank == partner[i]) {
            b->t += w;
        } else {
            a->t += w / 2;
            b->t += w / 2;
        }
    }
    return late_waited;
}

/* The truth of a scenario whose late ranks ran A (from one of the calls from_a to mid) and B
 * (from mid to op, the collective). */
static void judge(const char *scenario, const char *op, const char *mid, const char *from_a,
                  const double *e, const double *l, const int *late, const int *partner)
{
    struct cause c[2] = {{mid, from_a, 0}, {op, mid, 0}};
    double late_waited = share(e, l, late, partner, &c[0], &c[1]), sum;
    print(scenario, op, c, 2);
    /* a twentieth of the scenario's 0.2 s of waiting: where the late ranks waited more, the
     * scheduler, not the program, chose who was late (tests/cases/waits.py runs it again) */
    MPI_Reduce(&late_waited, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && sum > 0.01)
        printf("perturbed %s %.9f\n", scenario, sum);
}

/* barrier, allreduce, to_late: the last rank is late; ar: MPI_Allreduce instead of
 * MPI_Barrier; to_late: the message goes from rank 0 to it. */
static void one_late(const char *scenario, int ar, int to_late)
{
    double e[ROUNDS], l[ROUNDS];
    int late[ROUNDS], partner[ROUNDS];
    MPI_Barrier(MPI_COMM_WORLD); /* @site c_sync */
    for (int i = 0; i < ROUNDS; i++) {
        late[i] = last;
        partner[i] = 0;
        if (rank == last) {
            busy(SPIN);
            if (to_late)
                MPI_Recv(&y, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site c_recv */
            else
                MPI_Send(&x, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD); /* @site c_send */
            busy(SPIN);
        } else if (rank == 0) {
            if (to_late)
                MPI_Send(&x, 1, MPI_DOUBLE, last, 1, MPI_COMM_WORLD);
            else
                MPI_Recv(&y, 1, MPI_DOUBLE, last, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        e[i] = now();
        if (ar)
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @site c_ar */
        else if (to_late)
            MPI_Barrier(MPI_COMM_WORLD); /* @site c_bar2 */
        else
            MPI_Barrier(MPI_COMM_WORLD); /* @site c_bar */
        l[i] = now();
    }
    const char *op = ar ? "c_ar" : to_late ? "c_bar2" : "c_bar", *mid = to_late ? "c_recv" : "c_send";
    char from_a[32];
    snprintf(from_a, sizeof from_a, "c_sync,%s", op);
    judge(scenario, op, mid, from_a, e, l, late, partner);
}

/* The late rank alternates between the last rank and rank 0, each sending to the other. */
static void alternate(void)
{
    double e[ROUNDS], l[ROUNDS];
    int late[ROUNDS], partner[ROUNDS];
    MPI_Barrier(MPI_COMM_WORLD); /* @site a_sync */
    for (int i = 0; i < ROUNDS; i++) {
        late[i] = i % 2 ? 0 : last;
        partner[i] = i % 2 ? last : 0;
        if (rank == late[i]) {
            busy(SPIN);
            MPI_Send(&x, 1, MPI_DOUBLE, partner[i], 2, MPI_COMM_WORLD); /* @site a_send */
            busy(SPIN);
        } else if (rank == partner[i]) {
            MPI_Recv(&y, 1, MPI_DOUBLE, late[i], 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        e[i] = now();
        MPI_Barrier(MPI_COMM_WORLD); /* @site a_bar */
        l[i] = now();
    }
    judge("alternate", "a_bar", "a_send", "a_sync,a_bar", e, l, late, partner);
}

/* The last rank sends to rank 1 between A and B while rank 2 sends to rank 0. */
static void pairs(void)
{
    double e[ROUNDS], l[ROUNDS];
    int late[ROUNDS], partner[ROUNDS];
    MPI_Barrier(MPI_COMM_WORLD); /* @site p_sync */
    for (int i = 0; i < ROUNDS; i++) {
        late[i] = last;
        partner[i] = 1;
        if (rank == last) {
            busy(SPIN);
            MPI_Send(&x, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD); /* @site p_send */
            busy(SPIN);
        } else if (rank == 1) {
            MPI_Recv(&y, 1, MPI_DOUBLE, last, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 2) {
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Recv(&y, 1, MPI_DOUBLE, 2, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        e[i] = now();
        MPI_Barrier(MPI_COMM_WORLD); /* @site p_bar */
        l[i] = now();
    }
    judge("pairs", "p_bar", "p_send", "p_sync,p_bar", e, l, late, partner);
}

/* Send-only pipeline: each even rank sends to the next one, whose receive waits a period.
 * The sender measures its two regions of each period and sends them with the message: a
 * round's wait is theirs in proportion to their lengths (the excess of H-CWP-DM; the
 * receiver ran neither), 9:1 as written, whatever the scheduler stretched. */
static void pipeline(void)
{
    int to = rank % 2 ? -1 : rank + 1 < size ? rank + 1 : -1, from = rank % 2 ? rank - 1 : -1;
    double to_mark = 0, to_send = 0; /* the receiver's waiting of each region */
    int flag;
    MPI_Barrier(MPI_COMM_WORLD); /* @site q_sync */
    if (to >= 0) {
        busy(PRE);
        MPI_Send(&x, 1, MPI_DOUBLE, to, 5, MPI_COMM_WORLD); /* @site q_first */
        for (int i = 0; i < ROUNDS * 4; i++) {
            double sent = now();
            busy(0.9 * PERIOD);
            double mark = now();
            MPI_Iprobe(to, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* @site q_mark */
            double marked = now();
            busy(0.1 * PERIOD);
            double se = now(), msg[3] = {se, mark - sent, se - marked}; /* enter, the regions */
            MPI_Send(msg, 3, MPI_DOUBLE, to, 5, MPI_COMM_WORLD); /* @site q_send */
        }
    } else if (from >= 0) {
        MPI_Recv(&y, 1, MPI_DOUBLE, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < ROUNDS * 4; i++) {
            double e = now(), msg[3];
            MPI_Recv(msg, 3, MPI_DOUBLE, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site q_recv */
            double w = clampw(msg[0] - e);
            to_mark += w * msg[1] / (msg[1] + msg[2]);
            to_send += w * msg[2] / (msg[1] + msg[2]);
        }
    }
    struct cause c[2] = {{"q_mark", "q_first,q_send", to_mark}, {"q_send", "q_mark", to_send}};
    print("pipeline", "q_recv", c, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    last = size - 1;
    if (size < 2) {
        MPI_Finalize();
        return 0;
    }
    one_late("barrier", 0, 0);
    one_late("allreduce", 1, 0);
    one_late("to_late", 0, 1);
    alternate();
    if (size >= 4)
        pairs();
    pipeline();
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
