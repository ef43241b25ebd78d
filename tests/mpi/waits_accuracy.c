/* Wait states with ground truth by construction: before each operation one rank busy-waits
 * DELAY seconds more than the others. Every rank notes its own enter time (all ranks of
 * a test share one host clock); rank 0 prints, per scenario, the true wait of each rank as
 * "truth SCENARIO RANK SECONDS LATE". tests/run.py compares them with the profile.
 * drift: two seconds of equal work first, at barriers; drift_dup: the same, and everything
 * (scenarios, truth) on a duplicate of MPI_COMM_WORLD only; drift_mixed: the barriers
 * alternate between MPI_COMM_WORLD and the duplicate, the scenarios run on the duplicate.
 * usage: waits_accuracy [drift|drift_dup|drift_mixed] */
#include <mpi.h>
/* GCC mistakes MPI_STATUSES_IGNORE for a too-small array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>
#include <string.h>
#include "truth.h"

#define DELAY 0.15

static int rank, size;
static MPI_Comm comm = MPI_COMM_WORLD; /* of the scenarios */

/* max over ranks (or over ranks <= me for scan) of enter times */
static double max_enter(double e, int scan)
{
    double m;
    if (!scan)
        return latest_on(comm, e);
    MPI_Scan(&e, &m, 1, MPI_DOUBLE, MPI_MAX, comm); /* @site tscan */
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int last = size - 1;
    double x = 1, y = 0, e, l, m;
    if (argc > 1 && !strncmp(argv[1], "drift", 5)) {
        /* Two seconds of equal work before the scenarios: a drifting clock is well off by
         * then unless tardy resynchronises (these barriers are where it can). */
        int mixed = !strcmp(argv[1], "drift_mixed");
        if (mixed || !strcmp(argv[1], "drift_dup"))
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        for (int i = 0; i < 20; i++) {
            busy(0.1);
            MPI_Barrier(mixed && i % 2 ? MPI_COMM_WORLD : comm); /* @site pre */
        }
    }
    /* Late Sender: the last rank sends late to rank 0. */
    MPI_Barrier(comm); /* @site sync_ls */
    if (rank == last && size > 1) {
        busy(DELAY);
        e = now();
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 5, comm); /* @site ls_send */
    } else if (rank == 0 && size > 1) {
        e = now();
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 5, comm, MPI_STATUS_IGNORE); /* @site ls_recv */
    } else {
        e = now();
    }
    {
        double se = e;
        MPI_Bcast(&se, 1, MPI_DOUBLE, last, comm); /* @site tbc1 */
        truth_on(comm, "late_sender", rank == 0 && size > 1 ? clampw(se - e) : 0, last);
    }

    /* Wait at Barrier */
    MPI_Barrier(comm); /* @site sync_bar */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Barrier(comm); /* @site op_barrier */
    m = max_enter(e, 0);
    truth_on(comm, "barrier", clampw(m - e), last);

    /* Wait at N×N: Allreduce */
    MPI_Barrier(comm); /* @site sync_ar */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm); /* @site op_allreduce */
    m = max_enter(e, 0);
    truth_on(comm, "allreduce", clampw(m - e), last);

    /* Late Broadcast: the root (last) is late. */
    MPI_Barrier(comm); /* @site sync_bc */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Bcast(&x, 1, MPI_DOUBLE, last, comm); /* @site op_bcast */
    {
        double re = e;
        MPI_Bcast(&re, 1, MPI_DOUBLE, last, comm); /* @site tbc2 */
        truth_on(comm, "bcast", rank != last ? clampw(re - e) : 0, last);
    }

    /* Early Reduce: root 0 is early, the last rank late. */
    MPI_Barrier(comm); /* @site sync_red */
    if (rank == last && size > 1)
        busy(DELAY);
    e = now();
    MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, comm); /* @site op_reduce */
    m = max_enter(rank == 0 ? 0 : e, 0);
    truth_on(comm, "reduce", rank == 0 && size > 1 ? clampw(m - e) : 0, last);

    /* Early Scan: rank 0 is late, everybody after it waits. */
    MPI_Barrier(comm); /* @site sync_scan */
    if (rank == 0)
        busy(DELAY);
    e = now();
    MPI_Scan(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm); /* @site op_scan */
    m = max_enter(e, 1);
    truth_on(comm, "scan", clampw(m - e), 0);

    /* Nonblocking collective: the wait shows in MPI_Wait. */
    MPI_Barrier(comm); /* @site sync_iar */
    MPI_Request req;
    double init;
    if (rank == last)
        busy(DELAY);
    init = now();
    MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, &req); /* @site op_iallreduce */
    e = now();
    MPI_Wait(&req, MPI_STATUS_IGNORE); /* @site op_iwait */
    l = now();
    m = max_enter(init, 0);
    truth_on(comm, "iallreduce", clampw((m < l ? m : l) - e), last);

    /* Alltoallv */
    MPI_Barrier(comm); /* @site sync_a2av */
    int sc[64], sd[64];
    double sb[64], rb[64];
    for (int i = 0; i < size && i < 64; i++) {
        sc[i] = 1;
        sd[i] = i;
        sb[i] = rank;
    }
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Alltoallv(sb, sc, sd, MPI_DOUBLE, rb, sc, sd, MPI_DOUBLE, comm); /* @site op_a2av */
    m = max_enter(e, 0);
    truth_on(comm, "alltoallv", clampw(m - e), last);

    /* Late Sender through MPI_Irecv + MPI_Waitall, wildcard source */
    MPI_Barrier(comm); /* @site sync_irecv */
    if (rank == last && size > 1) {
        busy(DELAY);
        e = now();
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 6, comm); /* @site ls2_send */
    } else if (rank == 0 && size > 1) {
        MPI_Request r2[1];
        MPI_Irecv(&y, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r2[0]); /* @site ls2_irecv */
        e = now();
        MPI_Waitall(1, r2, MPI_STATUSES_IGNORE); /* @site ls2_wait */
    } else {
        e = now();
    }
    {
        double se = e;
        MPI_Bcast(&se, 1, MPI_DOUBLE, last, comm); /* @site tbc3 */
        truth_on(comm, "irecv", rank == 0 && size > 1 ? clampw(se - e) : 0, last);
    }
    /* Late Receiver: rank 0 posts its receive late; the last rank waits in MPI_Ssend. */
    MPI_Barrier(comm); /* @site sync_lr */
    if (rank == 0 && size > 1) {
        busy(DELAY);
        e = now();
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 7, comm, MPI_STATUS_IGNORE); /* @site lr_recv */
    } else if (rank == last && size > 1) {
        e = now();
        MPI_Ssend(&x, 1, MPI_DOUBLE, 0, 7, comm); /* @site lr_ssend */
        l = now();
    } else {
        e = now();
    }
    {
        double re = e;
        MPI_Bcast(&re, 1, MPI_DOUBLE, 0, comm); /* @site tbc4 */
        truth_on(comm, "ssend", rank == last && size > 1 ? clampw((re < l ? re : l) - e) : 0, 0);
    }
    /* Late Receiver through MPI_Issend: the wait shows in the MPI_Wait completing it. */
    MPI_Barrier(comm); /* @site sync_lr2 */
    if (rank == 0 && size > 1) {
        busy(DELAY);
        e = now();
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 10, comm, MPI_STATUS_IGNORE); /* @site lr2_recv */
    } else if (rank == last && size > 1) {
        MPI_Request r3;
        MPI_Issend(&x, 1, MPI_DOUBLE, 0, 10, comm, &r3); /* @site lr2_issend */
        e = now();
        MPI_Wait(&r3, MPI_STATUS_IGNORE); /* @site lr2_wait */
        l = now();
    } else {
        e = now();
    }
    {
        double re = e;
        MPI_Bcast(&re, 1, MPI_DOUBLE, 0, comm); /* @site tbc5 */
        truth_on(comm, "issend", rank == last && size > 1 ? clampw((re < l ? re : l) - e) : 0, 0);
    }
    /* Late Receiver through a persistent synchronous send, completed by MPI_Waitall. */
    MPI_Request r4 = MPI_REQUEST_NULL;
    if (rank == last && size > 1)
        MPI_Ssend_init(&x, 1, MPI_DOUBLE, 0, 11, comm, &r4); /* @site lr3_init */
    MPI_Barrier(comm); /* @site sync_lr3 */
    if (rank == 0 && size > 1) {
        busy(DELAY);
        e = now();
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 11, comm, MPI_STATUS_IGNORE); /* @site lr3_recv */
    } else if (rank == last && size > 1) {
        MPI_Start(&r4); /* @site lr3_start */
        e = now();
        MPI_Waitall(1, &r4, MPI_STATUSES_IGNORE); /* @site lr3_wait */
        l = now();
        MPI_Request_free(&r4);
    } else {
        e = now();
    }
    {
        double re = e;
        MPI_Bcast(&re, 1, MPI_DOUBLE, 0, comm); /* @site tbc6 */
        truth_on(comm, "ssend_init", rank == last && size > 1 ? clampw((re < l ? re : l) - e) : 0, 0);
    }
    /* Two Issends completed by one MPI_Waitall: rank 0 posts its receive DELAY late, the
     * other receiver (rank 1, or rank 0 again at 2 ranks) DELAY/2 late; the Waitall's wait is
     * the larger one, counted once. */
    MPI_Barrier(comm); /* @site sync_lr4 */
    {
        int other = size > 2 ? 1 : 0, n = 0;
        MPI_Request r5[2];
        double re = 0;
        if (size > 1 && (rank == 0 || rank == other)) {
            busy(rank == 0 ? DELAY : DELAY / 2);
            re = now();
            /* one line for both receivers: whichever posts last, its region ends here */
            for (int k = 0; k < 2; k++)
                if (rank == (k ? other : 0))
                    MPI_Irecv(&y, 1, MPI_DOUBLE, last, 12 + k, comm, &r5[n++]); /* @site lr4_irecv */
            MPI_Waitall(n, r5, MPI_STATUSES_IGNORE);
        } else if (rank == last && size > 1) {
            MPI_Issend(&x, 1, MPI_DOUBLE, 0, 12, comm, &r5[0]);
            MPI_Issend(&x, 1, MPI_DOUBLE, other, 13, comm, &r5[1]);
            e = now();
            MPI_Waitall(2, r5, MPI_STATUSES_IGNORE); /* @site lr4_wait */
            l = now();
        }
        /* the late rank is whichever receiver posted last: rank 0 by DELAY / 2 as written, but
         * the scheduler of an oversubscribed machine can stall the other one longer (CI once
         * saw tardy name rank 1, rightly, against a truth that said 0) */
        struct {
            double t;
            int rank;
        } mine = {re, rank}, latest_post;
        MPI_Allreduce(&mine, &latest_post, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
        m = latest_post.t;
        truth_on(comm, "issend_pair", rank == last && size > 1 ? clampw((m < l ? m : l) - e) : 0,
                 latest_post.rank);
    }
    /* A cancelled send's timestamp must not be taken for the next message with its tag: the
     * last rank sends tag 15 and cancels it (where the MPI can cancel sends), then sends tag
     * 15 late; rank 0 waits for that one. */
    MPI_Barrier(comm); /* @site sync_cs */
    {
        int cancelled = 0;
        if (rank == last && size > 1) {
            MPI_Request r6;
            MPI_Status st6;
            MPI_Isend(&x, 1, MPI_DOUBLE, 0, 15, comm, &r6);
            MPI_Cancel(&r6);
            MPI_Wait(&r6, &st6);
            MPI_Test_cancelled(&st6, &cancelled);
        }
        MPI_Bcast(&cancelled, 1, MPI_INT, last, comm); /* @site tbc9 */
        if (rank == 0 && size > 1 && !cancelled)
            MPI_Recv(&y, 1, MPI_DOUBLE, last, 15, comm, MPI_STATUS_IGNORE);
        if (rank == 0)
            printf("send cancelled %d\n", cancelled);
    }
    MPI_Barrier(comm); /* @site sync_cs2 */
    if (rank == last && size > 1) {
        busy(DELAY);
        e = now();
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 15, comm); /* @site cs_send */
    } else if (rank == 0 && size > 1) {
        e = now();
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 15, comm, MPI_STATUS_IGNORE); /* @site cs_recv */
    } else {
        e = now();
    }
    {
        double se = e;
        MPI_Bcast(&se, 1, MPI_DOUBLE, last, comm); /* @site tbc10 */
        truth_on(comm, "cancelled_send", rank == 0 && size > 1 ? clampw(se - e) : 0, last);
    }
    /* Late Sender, wrong order, same source: the last rank sends tag 9, computes, sends
     * tag 8; rank 0 receives tag 8 first, waiting while tag 9 was there. */
    MPI_Barrier(comm); /* @site sync_wo */
    if (rank == last && size > 1) {
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 9, comm); /* @site wo_early */
        busy(DELAY);
        e = now();
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 8, comm); /* @site wo_late */
    } else if (rank == 0 && size > 1) {
        e = now();
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 8, comm, MPI_STATUS_IGNORE); /* @site wo_recv */
        MPI_Recv(&y, 1, MPI_DOUBLE, last, 9, comm, MPI_STATUS_IGNORE);
    } else {
        e = now();
    }
    {
        double se = e;
        MPI_Bcast(&se, 1, MPI_DOUBLE, last, comm); /* @site tbc7 */
        truth_on(comm, "wrong_order", rank == 0 && size > 1 ? clampw(se - e) : 0, last);
    }
    /* Late Sender, wrong order, different sources (3 ranks or more): rank 1 sends at once,
     * the last rank late; rank 0 receives from the last rank first. */
    if (size > 2) {
        MPI_Barrier(comm); /* @site sync_wo2 */
        if (rank == last) {
            busy(DELAY);
            e = now();
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 14, comm); /* @site wo2_late */
        } else if (rank == 1) {
            e = now();
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 14, comm);
        } else if (rank == 0) {
            e = now();
            MPI_Recv(&y, 1, MPI_DOUBLE, last, 14, comm, MPI_STATUS_IGNORE); /* @site wo2_recv */
            MPI_Recv(&y, 1, MPI_DOUBLE, 1, 14, comm, MPI_STATUS_IGNORE);
        } else {
            e = now();
        }
        double se = e;
        MPI_Bcast(&se, 1, MPI_DOUBLE, last, comm); /* @site tbc8 */
        truth_on(comm, "wrong_order_src", rank == 0 ? clampw(se - e) : 0, last);
    }
    fflush(stdout);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
