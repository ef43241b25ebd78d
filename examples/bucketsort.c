/* Integer bucket sort: every rank draws KEYS random keys (fixed seed per rank), sends each key
 * to the rank owning its range (MPI_Alltoall of counts, MPI_Alltoallv of keys), sorts locally
 * and checks the global order. Usage: bucketsort KEYS ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_KEY (1u << 24)

static int parse(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 1 || v > 1 << 26)
        return -1;
    *out = (int)v;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* One round: returns 1 when this rank's keys are sorted and follow the previous rank's. */
static int sort_round(unsigned *keys, int nkeys, int rank, int size, unsigned *seed)
{
    int *scount = calloc(size, sizeof *scount), *rcount = malloc(size * sizeof *rcount);
    int *sdisp = malloc(size * sizeof *sdisp), *rdisp = malloc(size * sizeof *rdisp);
    unsigned *sorted = malloc((size_t)nkeys * sizeof *sorted);
    unsigned width = MAX_KEY / size + 1;
    for (int i = 0; i < nkeys; i++) {
        *seed = *seed * 1103515245u + 12345u;
        keys[i] = (*seed >> 4) % MAX_KEY;
        scount[keys[i] / width]++;
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int q = 0, s = 0; q < size; q++) {
        sdisp[q] = s;
        s += scount[q];
        rdisp[q] = total;
        total += rcount[q];
    }
    int *fill = calloc(size, sizeof *fill);
    for (int i = 0; i < nkeys; i++) {
        int q = keys[i] / width;
        sorted[sdisp[q] + fill[q]++] = keys[i];
    }
    unsigned *mine = malloc((size_t)(total ? total : 1) * sizeof *mine);
    MPI_Alltoallv(sorted, scount, sdisp, MPI_UNSIGNED, mine, rcount, rdisp, MPI_UNSIGNED,
                  MPI_COMM_WORLD);
    qsort(mine, total, sizeof *mine, cmp);
    /* Order across ranks: my smallest key is not below the previous rank's largest. */
    unsigned last = total ? mine[total - 1] : 0, prev = 0;
    MPI_Sendrecv(&last, 1, MPI_UNSIGNED, rank < size - 1 ? rank + 1 : MPI_PROC_NULL, 0, &prev, 1,
                 MPI_UNSIGNED, rank > 0 ? rank - 1 : MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int ok = !total || rank == 0 || mine[0] >= prev;
    for (int i = 1; i < total; i++)
        ok &= mine[i - 1] <= mine[i];
    free(scount), free(rcount), free(sdisp), free(rdisp), free(sorted), free(fill), free(mine);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, size, nkeys, iterations;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || parse(argv[1], &nkeys) || parse(argv[2], &iterations)) {
        if (rank == 0)
            fprintf(stderr, "usage: bucketsort KEYS_PER_RANK ITERATIONS\n");
        MPI_Finalize();
        return 2;
    }
    unsigned *keys = malloc((size_t)nkeys * sizeof *keys), seed = 7919u * (rank + 1);
    int ok = 1, all;
    for (int it = 0; it < iterations; it++)
        ok &= sort_round(keys, nkeys, rank, size, &seed);
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bucketsort %d keys x %d ranks, %d rounds: %s\n", nkeys, size, iterations,
               all ? "OK" : "FAILED");
    free(keys);
    MPI_Finalize();
    return all || rank ? 0 : 1;
}
