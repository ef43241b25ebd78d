/* Exact call counts and bytes per call site, intervals between marked sites, MPI_Pcontrol,
 * sub-communicators. Runs at any number of ranks; pairs (0,1), (2,3), ... exchange. The
 * checker (tests/run.py) finds the call sites by the @site markers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10

static void spin(double seconds)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < seconds)
        ;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double buf[100] = {0};
    int partner = rank ^ 1;
    int paired = partner < size;

    for (int i = 0; i < N && paired; i++) {
        if (rank % 2 == 0)
            MPI_Send(buf, 100, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD); /* @site send100 */
        else
            MPI_Recv(buf, 100, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site recv100 */
    }

    /* A derived type: 4 blocks of 2 ints = 32 bytes per element, 3 elements. */
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int ints[3 * 12 + 8];
    if (paired && rank % 2 == 0)
        MPI_Send(ints, 3, vec, partner, 2, MPI_COMM_WORLD); /* @site vecsend */
    else if (paired)
        MPI_Recv(ints, 3, vec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* @site anyrecv */
    MPI_Type_free(&vec);

    double x = rank;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @site inplace */

    /* Alltoallv: rank r sends r+1 ints to everyone. */
    int *sc = malloc(size * sizeof *sc), *rc = malloc(size * sizeof *rc);
    int *sd = malloc(size * sizeof *sd), *rd = malloc(size * sizeof *rd);
    int *sb = malloc(size * (rank + 1) * sizeof *sb), *rb = malloc(size * (size + 1) * sizeof *rb);
    for (int q = 0, off = 0; q < size; q++) {
        sc[q] = rank + 1;
        sd[q] = q * (rank + 1);
        rc[q] = q + 1;
        rd[q] = off;
        off += q + 1;
    }
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD); /* @site a2av */

    /* A known compute interval: 5 × 40 ms between two marked barriers. The program measures
     * it too (the truth, should the machine be loaded and the process preempted). */
    double spun = 0;
    for (int i = 0; i < 5; i++) {
        MPI_Barrier(MPI_COMM_WORLD); /* @site before_spin */
        double t0 = MPI_Wtime();
        spin(0.040);
        spun += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD); /* @site after_spin */
    }
    printf("spin rank %d: %.6f s\n", rank, spun);

    /* Calls made while collection is off do not appear. */
    MPI_Pcontrol(0);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD); /* @site hidden */
    MPI_Pcontrol(1);

    /* A sub-communicator: odd and even ranks; rank 1 of each sends 16 bytes to rank 0. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    char msg[16] = "sixteen bytes!!";
    if (hsize > 1 && hrank == 1)
        MPI_Send(msg, 16, MPI_CHAR, 0, 3, half); /* @site subsend */
    if (hsize > 1 && hrank == 0)
        MPI_Recv(msg, 16, MPI_CHAR, 1, 3, half, MPI_STATUS_IGNORE); /* @site subrecv */
    MPI_Comm_free(&half);

    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
