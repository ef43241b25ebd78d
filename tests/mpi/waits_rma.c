/* One-sided wait states with ground truth by construction: before each operation one rank
 * busy-waits DELAY seconds more than the others. Rank 0 prints, per scenario, the true wait
 * of each rank as "truth SCENARIO RANK SECONDS LATE" (all ranks share one host clock), and
 * for Late Post the call the library blocked in ("blocked MPI_Win_start" or ..._complete).
 * The data the windows carry is checked: "data ok". Needs 2 ranks or more. */
#include <mpi.h>
#include <stdio.h>
#include "truth.h"

#define DELAY 0.15

static int rank, size;

/* The wait of a call from e to l for an event at t, clamped to the call. */
static double wait_for(double t, double e, double l)
{
    double w = (t < l ? t : l) - e;
    return w > 0 ? w : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > 64) {
        if (rank == 0)
            printf("needs 2 to 64 ranks\n");
        MPI_Finalize();
        return 1;
    }
    int last = size - 1, bad = 0;
    double buf[64] = {0}, x, e, l;
    MPI_Win win;
    MPI_Group wg, others, one;

    /* Wait at Window Create: the last rank comes late to MPI_Win_create. */
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_create */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win); /* @site op_create */
    l = now();
    truth("create", wait_for(latest(e), e, l), last);

    /* Wait at Fence: every rank puts rank + 1 into its right neighbour's slot `rank`; the
     * last rank comes late to the fence closing the epoch (MPICH ch3's fence opening one
     * with MPI_MODE_NOPRECEDE does not synchronise). */
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_fence */
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win); /* @site fence_open */
    x = rank + 1;
    MPI_Put(&x, 1, MPI_DOUBLE, (rank + 1) % size, rank, 1, MPI_DOUBLE, win); /* @site put1 */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win); /* @site op_fence */
    l = now();
    bad |= buf[(rank + size - 1) % size] != (rank + size - 1) % size + 1;
    truth("fence", wait_for(latest(e), e, l), last);

    /* Late Post: the last rank exposes its window late to all others, which put rank + 1
     * into its slot `rank` (64 + rank: this epoch's values) in an access epoch. */
    MPI_Win_get_group(win, &wg);
    MPI_Group_excl(wg, 1, &last, &others);
    MPI_Group_incl(wg, 1, &last, &one);
    double ep = 0, es = 0, ls = 0, ec = 0, lc = 0;
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_lp */
    if (rank == last) {
        busy(DELAY);
        ep = now();
        MPI_Win_post(others, 0, win); /* @site op_post */
        MPI_Win_wait(win); /* @site op_wait_lp */
        for (int r = 0; r < last; r++)
            bad |= buf[r] != 64 + r;
    } else {
        es = now();
        MPI_Win_start(one, 0, win); /* @site op_start */
        ls = now();
        x = 64 + rank;
        MPI_Put(&x, 1, MPI_DOUBLE, last, rank, 1, MPI_DOUBLE, win); /* @site put2 */
        ec = now();
        MPI_Win_complete(win); /* @site op_complete */
        lc = now();
    }
    {
        double post = latest(ep), ws = wait_for(post, es, ls), wc = wait_for(post, ec, lc);
        if (rank == 0)
            printf("blocked %s\n", ws >= wc ? "MPI_Win_start" : "MPI_Win_complete");
        truth("late_post", rank == last ? 0 : ws > wc ? ws : wc, last);
    }

    /* Early Wait: rank 0 exposes its window to all others; the last one completes its access
     * epoch late. */
    MPI_Group zero;
    int z = 0;
    MPI_Group_free(&others);
    MPI_Group_free(&one);
    MPI_Group_incl(wg, 1, &z, &zero);
    MPI_Group_excl(wg, 1, &z, &others);
    double complete = 0;
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_ew */
    if (rank == 0) {
        MPI_Win_post(others, 0, win); /* @site op_post2 */
        e = now();
        MPI_Win_wait(win); /* @site op_wait */
        l = now();
        for (int r = 1; r < size; r++)
            bad |= buf[r] != 128 + r;
    } else {
        MPI_Win_start(zero, 0, win); /* @site op_start2 */
        x = 128 + rank;
        MPI_Put(&x, 1, MPI_DOUBLE, 0, rank, 1, MPI_DOUBLE, win); /* @site put3 */
        if (rank == last)
            busy(DELAY);
        complete = now();
        MPI_Win_complete(win); /* @site op_complete2 */
    }
    complete = latest(complete);
    truth("early_wait", rank == 0 ? wait_for(complete, e, l) : 0, last);
    MPI_Group_free(&others);
    MPI_Group_free(&zero);
    MPI_Group_free(&wg);

    /* Wait at Window Free */
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_free */
    if (rank == last)
        busy(DELAY);
    e = now();
    MPI_Win_free(&win); /* @site op_free */
    l = now();
    truth("free", wait_for(latest(e), e, l), last);

    /* Wait at Fence on a window of MPI_Win_allocate over a sub-communicator: ranks 0 and the
     * last; the last is late. Win_test polls rank 0's exposure epoch to its end. */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 || rank == last ? 0 : MPI_UNDEFINED, rank, &sub);
    double *mem = NULL, fe = 0, fl = 0;
    if (sub != MPI_COMM_NULL) {
        MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, sub, &mem, &win); /* @site op_alloc */
        mem[0] = mem[1] = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_fsub */
    if (sub != MPI_COMM_NULL) {
        int me;
        MPI_Comm_rank(sub, &me);
        MPI_Win_fence(0, win); /* @site fence_sub_open */
        x = 7 + me;
        MPI_Put(&x, 1, MPI_DOUBLE, 1 - me, 1, 1, MPI_DOUBLE, win); /* @site put4 */
        if (rank == last)
            busy(DELAY);
        fe = now();
        MPI_Win_fence(0, win); /* @site op_fence_sub */
        fl = now();
        bad |= mem[1] != 7 + (1 - me);
        MPI_Win_get_group(win, &wg);
        MPI_Group_incl(wg, 1, &z, &zero);
        int o = 1 - me;
        MPI_Group_incl(wg, 1, &o, &one);
        if (me == 0) {
            int flag = 0;
            MPI_Win_post(one, 0, win); /* @site op_post3 */
            while (!flag)
                MPI_Win_test(win, &flag); /* @site op_test */
            bad |= mem[0] != 11;
        } else {
            MPI_Win_start(zero, 0, win); /* @site op_start3 */
            x = 11;
            MPI_Put(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win); /* @site put5 */
            MPI_Win_complete(win); /* @site op_complete3 */
        }
        MPI_Group_free(&one);
        MPI_Group_free(&zero);
        MPI_Group_free(&wg);
    }
    double m = latest(sub != MPI_COMM_NULL ? fe : 0);
    truth("fence_sub", sub != MPI_COMM_NULL ? wait_for(m, fe, fl) : 0, last);
    if (sub != MPI_COMM_NULL) {
        MPI_Win_free(&win); /* @site free_sub */
        MPI_Comm_free(&sub);
    }

    /* Repeated epochs, no delay: every rank exposes its window to its left neighbour while it
     * accesses its right neighbour's (access and exposure epochs overlap). */
    double cell[2] = {-1, -1}; /* with one double, MPICH 4.0.2 ch4 wrote beside it */
    MPI_Win_create(cell, sizeof cell, sizeof cell[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win); /* @site ring_create */
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Group lg, rg;
    MPI_Win_get_group(win, &wg);
    MPI_Group_incl(wg, 1, &left, &lg);
    MPI_Group_incl(wg, 1, &right, &rg);
    for (int i = 0; i < 50; i++) {
        MPI_Win_post(lg, 0, win); /* @site ring_post */
        MPI_Win_start(rg, 0, win); /* @site ring_start */
        x = 1000 * i + rank;
        MPI_Put(&x, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win); /* @site ring_put */
        MPI_Win_complete(win); /* @site ring_complete */
        MPI_Win_wait(win); /* @site ring_wait */
        bad |= cell[0] != 1000 * i + left;
    }
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    MPI_Win_free(&win); /* @site ring_free */

    int any = 0;
    MPI_Reduce(&bad, &any, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD); /* @site tbad */
    if (rank == 0)
        printf(any ? "data wrong\n" : "data ok\n");
    MPI_Finalize();
    return 0;
}
