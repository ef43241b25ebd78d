/* Master/worker: rank 0 hands out TASKS tasks of deliberately uneven cost, workers return
 * results that the master receives with MPI_ANY_SOURCE; at one rank the master works alone.
 * Usage: master_worker TASKS ITERATIONS (work per task grows with ITERATIONS). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

static int parse(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 1 || v > 1 << 24)
        return -1;
    *out = (int)v;
    return 0;
}

/* Task t costs (t % 7 + 1) units: uneven on purpose. */
static double work(int task, int iterations)
{
    double x = task;
    long steps = (long)(task % 7 + 1) * iterations * 1000;
    for (long i = 0; i < steps; i++)
        x = x * 0.999999 + 1.0 / (1.0 + (double)(i % 13));
    return x;
}

/* Results are stored by task and summed in task order, so the checksum does not depend on
 * the order in which workers answer. */
static double master(int tasks, int iterations, int size)
{
    double sum = 0, *result = calloc(tasks, sizeof *result);
    int next = 0, busy = 0;
    if (size == 1)
        for (int t = 0; t < tasks; t++)
            result[t] = work(t, iterations);
    for (int w = 1; w < size && size > 1; w++) {
        if (next < tasks) {
            MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
            next++, busy++;
        } else {
            MPI_Send(&next, 1, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    while (busy) {
        double r[2]; /* task, result */
        MPI_Status st;
        MPI_Recv(r, 2, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        result[(int)r[0]] = r[1];
        busy--;
        int tag = next < tasks ? TAG_TASK : TAG_STOP;
        MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, tag, MPI_COMM_WORLD);
        if (tag == TAG_TASK)
            next++, busy++;
    }
    for (int t = 0; t < tasks; t++)
        sum += result[t];
    free(result);
    return sum;
}

static void worker(int iterations)
{
    for (;;) {
        int task;
        MPI_Status st;
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            return;
        double r[2] = {task, work(task, iterations)};
        MPI_Send(r, 2, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size, tasks, iterations;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || parse(argv[1], &tasks) || parse(argv[2], &iterations)) {
        if (rank == 0)
            fprintf(stderr, "usage: master_worker TASKS ITERATIONS\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        double sum = master(tasks, iterations, size);
        printf("master_worker %d tasks on %d ranks: checksum %.6f\n", tasks, size, sum);
    } else {
        worker(iterations);
    }
    MPI_Finalize();
    return 0;
}
