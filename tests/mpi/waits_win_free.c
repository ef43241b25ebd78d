/* Windows freed while tardy still holds work of theirs (issue 14: freeing a window with
 * operations pending is safe). Each window is freed right after its last epoch, with nothing
 * in between that would let tardy finish that work earlier:
 *   fences:   ROUNDS fence epochs, the last rank late to each closing fence: fewer than one
 *             batch of fences (tool/waits/batch.c), so their exchange is still open at free;
 *   pscw:     an exposure epoch of rank 0, the last rank completing late, and the window
 *             freed at once: the records of the epoch (pscw.c) may still be in flight;
 *   orphan:   a window on a duplicate freed before the window, fences and PSCW after that;
 *   churn:    windows created and freed in turn (the first argument, 150 without one: more
 *             than tardy's window table holds), each freed right after an exposure epoch and
 *             a passive-target epoch.
 * Rank 0 prints the truth of the first two as "truth SCENARIO RANK SECONDS LATE" (per rank
 * totals), then "data ok" when every window carried its data. Needs 2 to 64 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "truth.h"

#define DELAY 0.05
#define ROUNDS 5

static int rank, size, last;

static double wait_for(double t, double e, double l)
{
    double w = (t < l ? t : l) - e;
    return w > 0 ? w : 0;
}

/* ROUNDS fences: each rank puts into its right neighbour, the last rank late. */
static int fences(void)
{
    double buf[ROUNDS] = {0}, x, mine = 0;
    int bad = 0;
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win); /* @site f_create */
    MPI_Win_fence(0, win); /* @site f_open */
    for (int i = 0; i < ROUNDS; i++) {
        x = 100 * i + rank;
        MPI_Put(&x, 1, MPI_DOUBLE, (rank + 1) % size, i, 1, MPI_DOUBLE, win); /* @site f_put */
        if (rank == last)
            busy(DELAY);
        double e = now();
        MPI_Win_fence(0, win); /* @site f_fence */
        double l = now();
        mine += wait_for(latest(e), e, l);
        bad |= buf[i] != 100 * i + (rank + size - 1) % size;
    }
    MPI_Win_free(&win); /* @site f_free */
    truth("fences", mine, last);
    return bad;
}

/* Rank 0 exposes its window to the others, the last completes late; freed right after. */
static int pscw(void)
{
    double buf[64] = {0}, x, e = 0, l = 0, complete = 0;
    int bad = 0, zero = 0;
    MPI_Win win;
    MPI_Group wg, g;
    MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win); /* @site p_create */
    MPI_Win_get_group(win, &wg);
    if (rank == 0)
        MPI_Group_excl(wg, 1, &zero, &g);
    else
        MPI_Group_incl(wg, 1, &zero, &g);
    MPI_Barrier(MPI_COMM_WORLD); /* @site p_sync */
    if (rank == 0) {
        MPI_Win_post(g, 0, win); /* @site p_post */
        e = now();
        MPI_Win_wait(win); /* @site p_wait */
        l = now();
        for (int r = 1; r < size; r++)
            bad |= buf[r] != 7 + r;
    } else {
        MPI_Win_start(g, 0, win); /* @site p_start */
        x = 7 + rank;
        MPI_Put(&x, 1, MPI_DOUBLE, 0, rank, 1, MPI_DOUBLE, win); /* @site p_put */
        if (rank == last)
            busy(DELAY);
        complete = now();
        MPI_Win_complete(win); /* @site p_complete */
    }
    MPI_Win_free(&win); /* @site p_free */
    complete = latest(complete);
    truth("pscw", rank == 0 ? wait_for(complete, e, l) : 0, last);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return bad;
}

/* A window whose communicator is freed first: fences and a ring of PSCW epochs on it. */
static int orphan(void)
{
    double cell[2] = {-1, -1}, x;
    int bad = 0, left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Comm dup;
    MPI_Win win;
    MPI_Group wg, lg, rg;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Win_create(cell, sizeof cell, sizeof cell[0], MPI_INFO_NULL, dup, &win); /* @site o_create */
    MPI_Comm_free(&dup);
    MPI_Win_fence(0, win); /* @site o_open */
    x = rank;
    MPI_Put(&x, 1, MPI_DOUBLE, right, 1, 1, MPI_DOUBLE, win); /* @site o_put */
    MPI_Win_fence(0, win); /* @site o_fence */
    bad |= cell[1] != left;
    MPI_Win_get_group(win, &wg);
    MPI_Group_incl(wg, 1, &left, &lg);
    MPI_Group_incl(wg, 1, &right, &rg);
    MPI_Win_post(lg, 0, win); /* @site o_post */
    MPI_Win_start(rg, 0, win); /* @site o_start */
    x = 10 + rank;
    MPI_Put(&x, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win); /* @site o_put2 */
    MPI_Win_complete(win); /* @site o_complete */
    MPI_Win_wait(win); /* @site o_wait */
    bad |= cell[0] != 10 + left;
    MPI_Win_free(&win); /* @site o_free */
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    return bad;
}

/* windows in turn, each freed with an exposure epoch just closed and a lock epoch
 * on the neighbour just ended. */
static int churn(int windows)
{
    int bad = 0, left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int i = 0; i < windows; i++) {
        double cell[2] = {-1, -1}, x = i + rank;
        MPI_Win win;
        MPI_Group wg, lg, rg;
        MPI_Win_create(cell, sizeof cell, sizeof cell[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win); /* @site c_create */
        MPI_Win_get_group(win, &wg);
        MPI_Group_incl(wg, 1, &left, &lg);
        MPI_Group_incl(wg, 1, &right, &rg);
        MPI_Win_post(lg, 0, win); /* @site c_post */
        MPI_Win_start(rg, 0, win); /* @site c_start */
        MPI_Put(&x, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win); /* @site c_put */
        MPI_Win_complete(win); /* @site c_complete */
        MPI_Win_wait(win); /* @site c_wait */
        bad |= cell[0] != i + left;
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win); /* @site c_lock */
        MPI_Put(&x, 1, MPI_DOUBLE, right, 1, 1, MPI_DOUBLE, win); /* @site c_put2 */
        MPI_Win_unlock(right, win); /* @site c_unlock */
        MPI_Win_free(&win); /* @site c_free */
        MPI_Group_free(&lg);
        MPI_Group_free(&rg);
        MPI_Group_free(&wg);
    }
    return bad;
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
    last = size - 1;
    int bad = fences();
    bad |= pscw();
    bad |= orphan();
    bad |= churn(argc > 1 ? atoi(argv[1]) : 150);
    int any = 0;
    MPI_Reduce(&bad, &any, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD); /* @site tbad */
    if (rank == 0)
        printf(any ? "data wrong\n" : "data ok\n");
    MPI_Finalize();
    return 0;
}
