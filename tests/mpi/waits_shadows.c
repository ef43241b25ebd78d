/* Communicators whose shadows tardy makes while the program goes on (tool/waits/comm.c), at 2
 * or more ranks:
 *  - copies: MPI_Comm_dup and MPI_Comm_dup_with_info of a communicator holding an attribute
 *    whose copy callback counts its calls; prints "copies N" (N = 4 with or without tardy);
 *  - freed: a split communicator freed before any use;
 *  - some: a split of all ranks, used by its ranks 0 and 1 only (rank 1 receives from a late
 *    rank 0), the others never touch it before they free it; truth "some";
 *  - threads: two threads per rank use a new communicator first at the same time (rank 0's
 *    threads send DELAY late, rank 1's receive; one after the other without
 *    MPI_THREAD_MULTIPLE), each receive a wait;
 *  - inter: INTER inter-communicators between the even and the odd ranks made one after the
 *    other, the two leaders exchanging a message on each (Open MPI hung in the making of
 *    their copies 1 run in 10 with fewer of them).
 * Prints "done" on rank 0 when every message carried the right data. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#include "truth.h"

#define DELAY 0.1
#define INTER 40

static int rank, size, bad, multiple;
static MPI_Comm tcomm;

static int count_copy(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)key, (void)in;
    ++*(int *)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* rank 0 sends late on tcomm with tag t, rank 1 receives and answers (thread t of 2: each
 * thread's last call is after its receive, where tardy takes the receive's record) */
static void *use_first(void *arg)
{
    int t = (int)(long)arg, x = t + 10, y = -1;
    if (rank == 0) {
        busy(DELAY);
        MPI_Send(&x, 1, MPI_INT, 1, t, tcomm); /* @site thr_send */
        MPI_Recv(&y, 1, MPI_INT, 1, t + 2, tcomm, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(&y, 1, MPI_INT, 0, t, tcomm, MPI_STATUS_IGNORE); /* @site thr_recv */
        MPI_Send(&y, 1, MPI_INT, 0, t + 2, tcomm);
    }
    bad |= rank < 2 && y != x;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    multiple = provided == MPI_THREAD_MULTIPLE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* copies */
    int calls = 0, key;
    MPI_Comm holder, d[4];
    MPI_Comm_dup(MPI_COMM_WORLD, &holder);
    MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key, &calls);
    MPI_Comm_set_attr(holder, key, &calls);
    MPI_Comm_dup(holder, &d[0]);
    MPI_Comm_dup(d[0], &d[1]);
    MPI_Comm_dup_with_info(holder, MPI_INFO_NULL, &d[2]);
    MPI_Comm_dup(d[2], &d[3]);
    int x = rank, y = -1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, d[3]);
    bad |= y != size - 1;
    for (int i = 0; i < 4; i++)
        MPI_Comm_free(&d[i]);
    MPI_Comm_free(&holder);
    MPI_Comm_free_keyval(&key);
    if (rank == 0)
        printf("copies %d\n", calls);

    /* freed */
    MPI_Comm unused;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &unused);
    MPI_Comm_free(&unused);

    /* some */
    MPI_Comm part;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &part);
    int prank;
    MPI_Comm_rank(part, &prank);
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_some */
    double e = prank < 2 ? now() : 0;
    if (prank == 0) {
        busy(DELAY);
        e = now();
        MPI_Send(&x, 1, MPI_INT, 1, 5, part); /* @site some_send */
    } else if (prank == 1) {
        MPI_Recv(&y, 1, MPI_INT, 0, 5, part, MPI_STATUS_IGNORE); /* @site some_recv */
        bad |= y != size - 1;
    }
    /* the receiver's wait: from its enter to the sender's (part's rank 0 is world's last) */
    double e_send = e;
    MPI_Bcast(&e_send, 1, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
    MPI_Comm_free(&part);
    truth("some", prank == 1 ? clampw(e_send - e) : 0, size - 1);

    /* threads */
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Comm_create(MPI_COMM_WORLD, g, &tcomm);
    MPI_Group_free(&g);
    MPI_Barrier(MPI_COMM_WORLD); /* @site sync_thr */
    if (multiple) {
        pthread_t th[2];
        for (long t = 0; t < 2; t++)
            pthread_create(&th[t], NULL, use_first, (void *)t);
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
    } else {
        use_first((void *)0);
        use_first((void *)1);
    }
    MPI_Comm_free(&tcomm);

    /* inter */
    MPI_Comm half;
    int hrank;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &hrank);
    for (int i = 0; i < INTER; i++) {
        MPI_Comm inter;
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 60, &inter);
        int v = i + rank % 2, w = -1;
        if (hrank == 0) {
            MPI_Sendrecv(&v, 1, MPI_INT, 0, i, &w, 1, MPI_INT, 0, i, inter, MPI_STATUS_IGNORE);
            bad |= w != i + 1 - rank % 2;
        }
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&half);

    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (rank == 0 && !anybad)
        printf("done\n");
    MPI_Finalize();
    return 0;
}
