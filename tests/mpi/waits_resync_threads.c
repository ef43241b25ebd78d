/* MPI_THREAD_MULTIPLE with periodic clock resynchronisation: THREADS threads per rank run
 * collectives at the same time, each on its own duplicate of MPI_COMM_WORLD (every one of
 * them a place where tardy may resynchronise), while the main thread runs them on
 * MPI_COMM_WORLD. Prints "ok" when every result is right. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include "busy.h"

#define THREADS 3
#define ROUNDS 50

static int size;
static MPI_Comm comms[THREADS + 1];
static int bad[THREADS + 1];

static void *work(void *arg)
{
    long t = (long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int one = 1, sum = 0;
        busy(0.001);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comms[t]); /* @site r_ar */
        bad[t] += sum != size;
        if (i % 10 == 0)
            MPI_Barrier(comms[t]); /* @site r_bar */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, all = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 77);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comms[THREADS] = MPI_COMM_WORLD;
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t tid[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&tid[t], NULL, work, (void *)t);
    work((void *)(long)THREADS);
    for (int t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        MPI_Comm_free(&comms[t]);
        bad[THREADS] += bad[t];
    }
    MPI_Reduce(&bad[THREADS], &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", all ? "wrong results" : "ok");
    MPI_Finalize();
    return 0;
}
