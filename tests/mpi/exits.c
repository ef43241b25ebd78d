/* Exit paths: "return N" after MPI_Finalize, "abort N" (MPI_Abort), "exit N" without
 * MPI_Finalize, "print" (output that must not change under tardy). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "return";
    int code = argc > 2 ? atoi(argv[2]) : 0;
    double x = rank + 1, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (!strcmp(mode, "print")) {
        for (int i = 0; i < 5 && rank == 0; i++)
            printf("line %d: %.17g\n", i, sum * (i + 1) / 3.0);
    } else if (!strcmp(mode, "abort")) {
        MPI_Abort(MPI_COMM_WORLD, code);
    } else if (!strcmp(mode, "exit")) {
        exit(code);
    }
    MPI_Finalize();
    return code;
}
