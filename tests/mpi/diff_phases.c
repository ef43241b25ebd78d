/* Two phases per round for `tardy diff`: a fixed setup, then a solve whose length is the
 * first argument (milliseconds per rank over all rounds), so doubling it doubles one compute
 * interval and nothing else. The second argument picks the closing call of a round:
 * "reduce" (MPI_Reduce) or "bcast" (MPI_Bcast), so one run's row is new and the other's
 * vanished. Usage: diff_phases SOLVE_MS reduce|bcast */
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
    double solve = atof(argv[1]) / 1e3 / ROUNDS, x = 1, y = 0;
    int bcast = !strcmp(argv[2], "bcast");
    for (int i = 0; i < ROUNDS; i++) {
        busy(0.002);
        MPI_Barrier(MPI_COMM_WORLD); // @site setup_done
        busy(solve);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); // @site solve_done
        if (bcast)
            MPI_Bcast(&y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); // @site closing_bcast
        else
            MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); // @site closing_reduce
    }
    MPI_Finalize();
    return 0;
}
