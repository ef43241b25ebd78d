/* The application's own allocations are not the MPI library's: between MPI calls the program
 * allocates BLOCKS x 1 MiB (kept until after MPI_Finalize) and churns malloc/calloc/realloc/
 * posix_memalign/aligned_alloc/anonymous mmap; a helper thread allocates while the main thread
 * waits inside MPI_Barrier (rank 1 arrives late). Prints "app bytes N" on rank 0. */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BLOCKS 64
#define MIB (1 << 20)

static atomic_int in_barrier, done;
static long thread_bytes;

static void *helper(void *arg)
{
    (void)arg;
    while (!atomic_load(&in_barrier))
        usleep(1000);
    while (!atomic_load(&done)) {
        void *p = malloc(MIB);
        memset(p, 1, 4096);
        free(p);
        thread_bytes += MIB;
    }
    return NULL;
}

static void churn(void)
{
    for (int i = 0; i < 1000; i++) {
        char *a = malloc(100 + i);
        char *b = calloc(10, 100 + i);
        a = realloc(a, 5000 + i);
        void *c = NULL;
        if (posix_memalign(&c, 64, 256 + i))
            abort();
        void *d = aligned_alloc(4096, 4096);
        void *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (!a || !b || !c || !d || m == MAP_FAILED)
            abort();
        a[0] = b[0] = 1;
        free(a);
        free(b);
        free(c);
        free(d);
        munmap(m, 8192);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *kept[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) {
        kept[i] = malloc(MIB);
        memset(kept[i], i, MIB);
        churn();
        MPI_Barrier(MPI_COMM_WORLD); /* @site abarrier */
    }
    pthread_t t;
    pthread_create(&t, NULL, helper, NULL);
    if (rank == 1)
        usleep(200000);
    atomic_store(&in_barrier, 1);
    usleep(rank == 0 ? 20000 : 0);
    MPI_Barrier(MPI_COMM_WORLD); /* @site athreadbarrier */
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("app bytes %ld\n", (long)BLOCKS * MIB + thread_bytes);
    for (int i = 0; i < BLOCKS; i++)
        free(kept[i]);
    return 0;
}
