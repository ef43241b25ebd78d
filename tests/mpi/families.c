/* One or two calls of each family the spec wraps, with bytes known in advance: nonblocking
 * and persistent point-to-point, a matched probe into MPI_STATUS_IGNORE, Sendrecv_replace of a
 * derived datatype, a send from MPI_BOTTOM, an in-place Allreduce, a nonblocking broadcast,
 * a neighbourhood collective, one-sided Put/Get between fences, MPI-IO. Needs an even number
 * of ranks: pairs (0,1), (2,3), ... exchange. tests/run.py checks counts and bytes per site. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* GCC 12 takes MPICH's MPI_STATUSES_IGNORE for a zero-sized array; passing it is the point. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) {
        fprintf(stderr, "families: needs an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int partner = rank ^ 1;
    double buf[64] = {0}, rbuf[64];
    MPI_Request rq[2];

    MPI_Irecv(rbuf, 8, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, &rq[0]); /* @site irecv */
    MPI_Isend(buf, 8, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, &rq[1]);  /* @site isend */
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);                             /* @site waitall */

    MPI_Request ps, pr;
    MPI_Send_init(buf, 4, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, &ps);
    MPI_Recv_init(rbuf, 4, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, &pr);
    for (int i = 0; i < 3; i++) {
        MPI_Start(&pr);                 /* @site start_recv */
        MPI_Start(&ps);                 /* @site start_send */
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
    }
    MPI_Request both[2] = {pr, ps};
    for (int i = 0; i < 2; i++) {
        MPI_Startall(2, both); /* @site startall */
        MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);

    /* 3 blocks of 2 doubles, stride 4: 48 bytes each way. */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Sendrecv_replace(buf, 1, vec, partner, 3, partner, 3, /* @site sendrecv_replace */
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&vec);

    /* Even ranks send 5 ints; odd ranks take them with a matched probe. */
    int five[5] = {1, 2, 3, 4, 5};
    if (rank % 2 == 0) {
        MPI_Send(five, 5, MPI_INT, partner, 4, MPI_COMM_WORLD); /* @site send_five */
    } else {
        MPI_Message msg;
        MPI_Mprobe(partner, 4, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE); /* @site mprobe */
        MPI_Mrecv(five, 5, MPI_INT, &msg, MPI_STATUS_IGNORE);             /* @site mrecv */
    }

    /* MPI_BOTTOM with absolute addresses: 3 ints (12 bytes) from odd to even ranks. */
    int three[3] = {7, 8, 9};
    if (rank % 2 == 1) {
        MPI_Aint addr;
        MPI_Get_address(three, &addr);
        MPI_Datatype abs3;
        MPI_Type_create_hindexed(1, (int[]){3}, &addr, MPI_INT, &abs3);
        MPI_Type_commit(&abs3);
        MPI_Send(MPI_BOTTOM, 1, abs3, partner, 5, MPI_COMM_WORLD); /* @site send_bottom */
        MPI_Type_free(&abs3);
    } else {
        MPI_Recv(three, 3, MPI_INT, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site recv_bottom */
    }

    double acc[3] = {1, 2, 3};
    MPI_Allreduce(MPI_IN_PLACE, acc, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @site inplace */

    int ten[10] = {0};
    MPI_Request bq;
    MPI_Ibcast(ten, 10, MPI_INT, 0, MPI_COMM_WORLD, &bq); /* @site ibcast */
    MPI_Wait(&bq, MPI_STATUS_IGNORE);                     /* @site ibcast_wait */

    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){size}, (int[]){1}, 0, &ring);
    int two[2] = {rank, rank}, got[4];
    MPI_Neighbor_allgather(two, 2, MPI_INT, got, 2, MPI_INT, ring); /* @site neighbor */
    MPI_Comm_free(&ring);

    double *base;
    MPI_Win win;
    MPI_Win_allocate(16 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    MPI_Win_fence(0, win);                                                  /* @site fence1 */
    MPI_Put(buf, 4, MPI_DOUBLE, partner, 0, 4, MPI_DOUBLE, win);            /* @site put */
    MPI_Get(rbuf, 2, MPI_DOUBLE, partner, 8, 2, MPI_DOUBLE, win);           /* @site get */
    MPI_Win_fence(0, win);                                                  /* @site fence2 */
    MPI_Win_free(&win);

    char path[] = "/tmp/tardy-families-XXXXXX";
    if (rank == 0) {
        int fd = mkstemp(path);
        if (fd >= 0)
            close(fd);
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_File fh;
    int six[6] = {0};
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, rank * 24, six, 6, MPI_INT, MPI_STATUS_IGNORE); /* @site fwrite */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fh, rank * 24, six, 6, MPI_INT, MPI_STATUS_IGNORE);  /* @site fread */
    MPI_File_close(&fh);
    if (rank == 0)
        unlink(path);

    MPI_Finalize();
    return 0;
}
