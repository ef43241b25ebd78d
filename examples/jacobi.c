/* 2D Jacobi stencil on an N x N grid, rows split over the ranks, halo exchange with
 * MPI_Sendrecv and a residual MPI_Allreduce every iteration. Usage: jacobi N ITERATIONS */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 1 || v > 1 << 20)
        return -1;
    *out = (int)v;
    return 0;
}

/* One sweep over the local rows 1..rows of u into v; returns the local squared change. */
static double sweep(const double *u, double *v, int rows, int n)
{
    double change = 0;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j < n - 1; j++) {
            double x = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                               u[i * n + j + 1]);
            change += (x - u[i * n + j]) * (x - u[i * n + j]);
            v[i * n + j] = x;
        }
    return change;
}

static void exchange(double *u, int rows, int n, int rank, int size)
{
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&u[1 * n], n, MPI_DOUBLE, up, 0, &u[(rows + 1) * n], n, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[rows * n], n, MPI_DOUBLE, down, 1, &u[0], n, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, n, iterations;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || parse(argv[1], &n) || parse(argv[2], &iterations) || n < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: jacobi N ITERATIONS   (N >= 3)\n");
        MPI_Finalize();
        return 2;
    }
    int rows = n / size + (rank < n % size);
    int first = rank * (n / size) + (rank < n % size ? rank : n % size);
    double *u = calloc((size_t)(rows + 2) * n, sizeof *u);
    double *v = calloc((size_t)(rows + 2) * n, sizeof *v);
    /* Fixed boundary: the top edge of the global grid is hot. */
    if (first == 0 && rows > 0)
        for (int j = 0; j < n; j++)
            u[1 * n + j] = v[1 * n + j] = 100.0;
    double residual = 0;
    for (int it = 0; it < iterations; it++) {
        exchange(u, rows, n, rank, size);
        double local = sweep(u, v, rows, n), global;
        if (first == 0 && rows > 0)
            memcpy(&v[1 * n], &u[1 * n], (size_t)n * sizeof *v);
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        residual = sqrt(global);
        double *t = u;
        u = v;
        v = t;
    }
    if (rank == 0)
        printf("jacobi %d x %d, %d iterations: residual %.6e\n", n, n, iterations, residual);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
