/* Two phases per round for `tardy diff`: a fixed setup, then a solve whose length is the
 * first argument (milliseconds per rank over all rounds), so doubling it doubles one compute
 * interval and nothing else. The second argument picks the closing call of a round:
 * "reduce" (MPI_Reduce) or "bcast" (MPI_Bcast), so one run's row is new and the other's
 * vanished. Each rank prints how long it solved, as its clock saw it (a preemption at the end
 * of the busy wait lengthens it). Usage: diff_phases SOLVE_MS reduce|bcast */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"

#define ROUNDS 10

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 3 || atof(argv[1]) <= 0 || (strcmp(argv[2], "reduce") && strcmp(argv[2], "bcast"))) {
        fprintf(stderr, "usage: diff_phases SOLVE_MS reduce|bcast\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double solve = atof(argv[1]) / 1e3 / ROUNDS, x = 1, y = 0, solved = 0;
    int bcast = !strcmp(argv[2], "bcast"), rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < ROUNDS; i++) {
        busy(0.001);
        MPI_Barrier(MPI_COMM_WORLD); // @site setup_done
        double t = now();
        busy(solve);
        solved += now() - t;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); // @site solve_done
        if (bcast)
            MPI_Bcast(&y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); // @site closing_bcast
        else
            MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); // @site closing_reduce
    }
    printf("solve rank %d: %.6f s\n", rank, solved);
    MPI_Finalize();
    return 0;
}
