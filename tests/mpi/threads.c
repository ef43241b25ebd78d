/* MPI_THREAD_MULTIPLE: THREADS threads per rank exchange messages with the partner rank at
 * the same time, each on its own duplicate of MPI_COMM_WORLD. Counts must be exact. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 20

static int rank, size;
static MPI_Comm comms[THREADS];

static void *exchange(void *arg)
{
    MPI_Comm comm = comms[(long)arg];
    int partner = rank ^ 1, buf[16] = {0};
    for (int i = 0; i < ROUNDS && partner < size; i++) {
        if (rank % 2 == 0) {
            MPI_Send(buf, 16, MPI_INT, partner, 0, comm); /* @site tsend */
            MPI_Recv(buf, 16, MPI_INT, partner, 0, comm, MPI_STATUS_IGNORE); /* @site trecv */
        } else {
            MPI_Recv(buf, 16, MPI_INT, partner, 0, comm, MPI_STATUS_IGNORE); /* @site trecv2 */
            MPI_Send(buf, 16, MPI_INT, partner, 0, comm); /* @site tsend2 */
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 77);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t tid[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&tid[t], NULL, exchange, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
