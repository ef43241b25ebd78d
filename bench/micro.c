/* MPI micro-benchmarks for `make bench`, independent of tardy. Usage: micro KIND ITERATIONS
 * KIND: pingpong (8 bytes), pingpong64k (64 KiB), deep (the ping-pong 12 frames down the stack), allreduce (1 double), allreduce1m (1 MiB of doubles), ring (1 KiB Isend/Irecv/Waitall),
 * iprobe (nothing pending), fence (empty MPI_Win_fence on a window of MPI_COMM_WORLD),
 * commdup (MPI_Comm_dup + MPI_Comm_free), cart (3-D MPI_Cart_create + MPI_Comm_free),
 * malloc (malloc/free pairs outside MPI), finalize (many call
 * sites, then times MPI_Finalize), callpaths (1,024 distinct call paths, for the profile's size). Prints on rank 0: "ns_per_call X rss_kib Y" (peak RSS,
 * max over ranks). Registers two software-defined counters (libsde) that tardy can read with
 * TARDY_PAPI=sde:::BENCH::A,sde:::BENCH::B. */
#include <mpi.h>
#include <sde_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void pingpong_bytes(int rank, long n, int bytes)
{
    static char buf[1 << 16];
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

static void pingpong(int rank, long n)
{
    pingpong_bytes(rank, n, 8);
}

/* The ping-pong called 12 frames deep, so a depth-8 call path is full. */
static __attribute__((noinline)) void nested(int rank, long n, int level)
{
    if (level > 0)
        nested(rank, n, level - 1);
    else
        pingpong(rank, n);
    __asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays on the stack */
}

static void ring(int rank, int size, long n)
{
    char out[1024] = {0}, in[1024];
    MPI_Request r[2];
    MPI_Status st[2];
    for (long i = 0; i < n; i++) {
        MPI_Irecv(in, 1024, MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, 1024, MPI_CHAR, (rank + 1) % size, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, st);
    }
}

/* 50 distinct call sites (a switch on the iteration) so the reduction has rows to merge. */
static void many_sites(long n)
{
    double x = 1, y;
    for (long i = 0; i < n; i++) {
        switch (i % 5) {
        case 0: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
        case 1: MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
        case 2: MPI_Barrier(MPI_COMM_WORLD); break;
        case 3: MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
        default: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); break;
        }
    }
}

/* Empty fences on a window of MPI_COMM_WORLD (made and freed in the loop's time: once). */
static void fences(long n)
{
    double buf[1];
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (long i = 0; i < n; i++)
        MPI_Win_fence(0, win);
    MPI_Win_free(&win);
}

/* MPI_Comm_dup + MPI_Comm_free of MPI_COMM_WORLD (with wait states: its private copies). */
static void comm_dups(long n)
{
    MPI_Comm c;
    for (long i = 0; i < n; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
    }
}

/* MPI_Cart_create + MPI_Comm_free, a periodic 3-D grid of all ranks (with wait states: its
 * private copies, one with the grid). */
static void carts(int size, long n)
{
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Comm c;
    MPI_Dims_create(size, 3, dims);
    for (long i = 0; i < n; i++) {
        MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &c);
        MPI_Comm_free(&c);
    }
}

/* callpaths: four levels of calls with four call sites each, then four MPI calls: 4^5 = 1,024
 * distinct call paths 7 frames deep, whose outer frames are shared as a large code's are. The
 * calls need no other rank (MPI_COMM_SELF, Iprobe), so 32 ranks on 2 cores run
 * them quickly. The store to sink after each call keeps the compiler from merging the four
 * calls into one. */
static volatile int sink;

static __attribute__((noinline, noipa)) void leaf(long i)
{
    double x = 1, y;
    int flag;
    switch (i & 3) {
    case 0: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF); break;
    case 1:
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, 0, 0, &y, 1, MPI_DOUBLE, 0, 0, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
        break;
    case 2: MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); break;
    default: MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_SELF); break;
    }
}

static __attribute__((noinline, noipa)) void branch(int level, long i)
{
    if (level == 0) {
        leaf(i);
        sink = 4;
        return;
    }
    switch ((i >> (2 * level)) & 3) {
    case 0: branch(level - 1, i); sink = 0; break;
    case 1: branch(level - 1, i); sink = 1; break;
    case 2: branch(level - 1, i); sink = 2; break;
    default: branch(level - 1, i); sink = 3; break;
    }
}

#define SITES10(f) f; f; f; f; f; f; f; f; f; f

static long long sde_a, sde_b;

int main(int argc, char **argv)
{
    papi_handle_t h = papi_sde_init("BENCH");
    papi_sde_register_counter(h, "A", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &sde_a);
    papi_sde_register_counter(h, "B", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &sde_b);
    double t_init = now();
    MPI_Init(&argc, &argv);
    t_init = now() - t_init;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *kind = argc > 1 ? argv[1] : "pingpong";
    long n = argc > 2 ? atol(argv[2]) : 100000, calls = n;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (!strcmp(kind, "pingpong")) {
        pingpong(rank, n);
        calls = 2 * n;
    } else if (!strcmp(kind, "pingpong64k")) {
        pingpong_bytes(rank, n, 1 << 16);
        calls = 2 * n;
    } else if (!strcmp(kind, "deep")) {
        nested(rank, n, 11);
        calls = 2 * n;
    } else if (!strcmp(kind, "allreduce")) {
        double x = 1, y;
        for (long i = 0; i < n; i++)
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(kind, "allreduce1m")) {
        int count = (1 << 20) / (int)sizeof(double);
        double *x = calloc((size_t)count, sizeof *x), *y = calloc((size_t)count, sizeof *y);
        for (long i = 0; x && y && i < n; i++)
            MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        free(x);
        free(y);
    } else if (!strcmp(kind, "ring")) {
        ring(rank, size, n);
        calls = 3 * n;
    } else if (!strcmp(kind, "iprobe")) {
        int flag;
        for (long i = 0; i < n; i++)
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    } else if (!strcmp(kind, "fence")) {
        fences(n);
    } else if (!strcmp(kind, "commdup")) {
        comm_dups(n);
    } else if (!strcmp(kind, "cart")) {
        carts(size, n);
    } else if (!strcmp(kind, "malloc")) {
        for (long i = 0; i < n; i++) {
            void *p = malloc(64 + (i & 15) * 8);
            __asm__ volatile("" : : "r"(p) : "memory");
            free(p);
        }
    } else if (!strcmp(kind, "finalize")) {
        SITES10(many_sites(n / 50));
        SITES10(many_sites(n / 50));
        SITES10(many_sites(n / 50));
        SITES10(many_sites(n / 50));
        SITES10(many_sites(n / 50));
    } else if (!strcmp(kind, "callpaths")) {
        for (long i = 0; i < n; i++)
            branch(4, i);
    }
    double t = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss, max_rss = 0;
    MPI_Reduce(&rss, &max_rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    double max_init = 0;
    MPI_Reduce(&t_init, &max_init, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double t_fin = now();
    MPI_Finalize();
    t_fin = now() - t_fin;
    if (rank == 0)
        printf("ns_per_call %.1f rss_kib %ld finalize_s %.4f init_s %.4f\n", t / calls * 1e9,
               max_rss, t_fin, max_init);
    return 0;
}
