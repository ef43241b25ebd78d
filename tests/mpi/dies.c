/* Jobs that die (issue 17): every rank runs 1,000 MPI_Allreduce calls, then
 *   abort CODE   rank 1 calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   crash        rank 1 dereferences a null pointer in compute code
 *   fpe          rank 1 raises SIGFPE (an integer division by zero)
 *   loop SECONDS every rank goes on with MPI_Allreduce for SECONDS (to be killed meanwhile);
 *                prints "looping" once all ranks are in the loop
 *   handler      as loop, with the program's own handler of the termination signals (SIGTERM,
 *                SIGINT, SIGXCPU, SIGUSR1): it prints, then exits 7
 * and otherwise ends normally. A third argument S (abort, crash, fpe): the ranks first run
 * MPI_Allreduce for S seconds (time for snapshots). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int *nowhere;

__attribute__((noinline)) static double compute_step(int i)
{
    double s = 0;
    for (int k = 0; k < 1000; k++)
        s += (double)k * i;
    if (i < 0)
        return s;
    return s + *nowhere; /* crash here */
}

__attribute__((noinline)) static int divide(int a, int b)
{
    return a / b; /* fpe here */
}

static double busy_loop(double seconds, int rank, int say)
{
    double x = rank + 1, sum = 0, end = MPI_Wtime() + seconds;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && say) {
        printf("looping\n");
        fflush(stdout);
    }
    int go = 1;
    while (go) {
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* loop2 here */
        int mine = MPI_Wtime() < end, all;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        go = all;
    }
    return sum;
}

static void on_term(int sig)
{
    static const char msg[] = "own handler\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    (void)sig;
    _exit(7);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "handler")) {
        signal(SIGTERM, on_term);
        signal(SIGINT, on_term);
        signal(SIGXCPU, on_term);
        signal(SIGUSR1, on_term);
    }
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x = rank + 1, sum = 0;
    for (int i = 0; i < 1000; i++)
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* loop here */
    if (argc > 3)
        sum += busy_loop(atof(argv[3]), rank, 0);
    if (!strcmp(mode, "abort") && rank == 1)
        MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 1); /* abort here */
    if (!strcmp(mode, "crash") && rank == 1)
        sum += compute_step(rank);
    if (!strcmp(mode, "fpe") && rank == 1)
        sum += divide(rank, rank - 1);
    if (!strcmp(mode, "loop") || !strcmp(mode, "handler"))
        sum += busy_loop(argc > 2 ? atof(argv[2]) : 30, rank, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return sum > 0 ? 0 : 1;
}
