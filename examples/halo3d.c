/* 3-D Jacobi stencil, the communication of LULESH-class codes: each rank holds an L x L x L
 * block of a periodic grid (ranks on a 3-D torus from MPI_Dims_create); every step exchanges
 * the block's boundary with all 26 neighbours (faces of L*L values, edges of L, corners of 1:
 * many small messages, MPI_Irecv/MPI_Isend/MPI_Waitall), sweeps, and sums the change over
 * all ranks with MPI_Allreduce. Usage: halo3d L STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDIR 26

static int L, W; /* block side, and with the ghost layer */

static size_t at(int i, int j, int k)
{
    return ((size_t)i * W + j) * W + k;
}

/* The 26 directions (dx, dy, dz) with at least one nonzero. */
static int dirs[NDIR][3];

static void make_dirs(void)
{
    int n = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++)
                if (dx || dy || dz) {
                    dirs[n][0] = dx;
                    dirs[n][1] = dy;
                    dirs[n][2] = dz;
                    n++;
                }
}

static int opposite(int d)
{
    return NDIR - 1 - d; /* the enumeration above is symmetric */
}

/* The index range along one axis of what goes out in direction c (inner boundary, ghost 0)
 * or comes in from it (the ghost layer, ghost 1). */
static void range(int c, int ghost, int *lo, int *hi)
{
    if (c == 0) {
        *lo = 1;
        *hi = L;
    } else {
        *lo = *hi = c > 0 ? (ghost ? L + 1 : L) : (ghost ? 0 : 1);
    }
}

/* Copy the region of direction d between u and buf (pack: u -> buf); returns the count. */
static int copy_region(double *u, double *buf, int d, int ghost, int pack)
{
    int lo[3], hi[3], n = 0;
    for (int a = 0; a < 3; a++)
        range(dirs[d][a], ghost, &lo[a], &hi[a]);
    for (int i = lo[0]; i <= hi[0]; i++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int k = lo[2]; k <= hi[2]; k++, n++) {
                if (pack)
                    buf[n] = u[at(i, j, k)];
                else
                    u[at(i, j, k)] = buf[n];
            }
    return n;
}

static void exchange(double *u, double **out, double **in, const int *nb, MPI_Comm torus)
{
    MPI_Request req[2 * NDIR];
    MPI_Status st[2 * NDIR]; /* not MPI_STATUSES_IGNORE: GCC 12 takes it for a small array */
    int counts[NDIR];
    for (int d = 0; d < NDIR; d++) {
        counts[d] = copy_region(u, out[d], d, 0, 1);
        /* what the neighbour in direction d sends towards me carries the tag of opposite(d) */
        MPI_Irecv(in[d], counts[d], MPI_DOUBLE, nb[d], opposite(d), torus, &req[d]);
    }
    for (int d = 0; d < NDIR; d++)
        MPI_Isend(out[d], counts[d], MPI_DOUBLE, nb[d], d, torus, &req[NDIR + d]);
    MPI_Waitall(2 * NDIR, req, st);
    for (int d = 0; d < NDIR; d++)
        copy_region(u, in[d], d, 1, 0);
}

static double sweep(const double *u, double *v)
{
    double change = 0;
    for (int i = 1; i <= L; i++)
        for (int j = 1; j <= L; j++)
            for (int k = 1; k <= L; k++) {
                double x = (u[at(i - 1, j, k)] + u[at(i + 1, j, k)] + u[at(i, j - 1, k)] +
                            u[at(i, j + 1, k)] + u[at(i, j, k - 1)] + u[at(i, j, k + 1)]) / 6;
                change += (x - u[at(i, j, k)]) * (x - u[at(i, j, k)]);
                v[at(i, j, k)] = x;
            }
    return change;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, steps;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || (L = atoi(argv[1])) < 1 || L > 512 || (steps = atoi(argv[2])) < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: %s L STEPS (block side 1..512, steps >= 1)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    W = L + 2;
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, me[3], nb[NDIR];
    MPI_Comm torus;
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &torus);
    MPI_Cart_coords(torus, rank, 3, me);
    make_dirs();
    for (int d = 0; d < NDIR; d++) {
        int c[3];
        for (int a = 0; a < 3; a++)
            c[a] = (me[a] + dirs[d][a] + dims[a]) % dims[a];
        MPI_Cart_rank(torus, c, &nb[d]);
    }
    size_t cells = (size_t)W * W * W;
    double *u = calloc(cells, sizeof *u), *v = calloc(cells, sizeof *v);
    double *out[NDIR], *in[NDIR];
    for (int d = 0; d < NDIR; d++) {
        out[d] = malloc((size_t)L * L * sizeof(double));
        in[d] = malloc((size_t)L * L * sizeof(double));
    }
    for (int i = 1; i <= L; i++) /* a hot spot on rank 0's block, cooling from there */
        for (int j = 1; j <= L; j++)
            for (int k = 1; k <= L; k++)
                u[at(i, j, k)] = rank == 0 && i == 1 ? 1.0 : 0.0;
    double t0 = MPI_Wtime(), global = 0;
    for (int s = 0; s < steps; s++) {
        exchange(u, out, in, nb, torus);
        double local = sweep(u, v);
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, torus);
        double *t = u;
        u = v;
        v = t;
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("halo3d: %d ranks (%dx%dx%d), block %d^3, %d steps, change %.6e, %.3f s\n", size,
               dims[0], dims[1], dims[2], L, steps, global, t);
    for (int d = 0; d < NDIR; d++) {
        free(out[d]);
        free(in[d]);
    }
    free(u);
    free(v);
    MPI_Comm_free(&torus);
    MPI_Finalize();
    return 0;
}
