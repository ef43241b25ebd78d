/* fork() after MPI_Init: under MPI_THREAD_MULTIPLE a second thread keeps the MPI library
 * allocating (MPI_Comm_dup/free) while the main thread forks FORKS children; each child
 * allocates and frees, then _exit(0)s. A child that deadlocks is killed by the timeout of the
 * test; a child that crashes shows in its status. Prints "forks ok N" on every rank. */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORKS 20

static atomic_int stop;

static void *busy(void *arg)
{
    MPI_Comm world = *(MPI_Comm *)arg;
    while (!atomic_load(&stop)) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_SELF, &c); /* @site fdup */
        MPI_Comm_free(&c);
    }
    (void)world;
    return NULL;
}

static void child(void)
{
    for (int i = 0; i < 10000; i++) {
        void *p = malloc(16 + i % 4096);
        if (!p)
            _exit(2);
        free(p);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    int provided, rank, ok = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm world = MPI_COMM_WORLD;
    pthread_t t;
    pthread_create(&t, NULL, busy, &world);
    for (int i = 0; i < FORKS; i++) {
        pid_t pid = fork();
        if (pid == 0)
            child();
        int status = 0;
        if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            ok++;
        else
            fprintf(stderr, "rank %d: child %d ended with status %#x\n", rank, i, status);
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("forks ok %d\n", ok);
    MPI_Finalize();
    return ok == FORKS ? 0 : 1;
}
