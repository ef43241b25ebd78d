/* A second QMPI tool for the tests only: stacked in front of or behind tardy through
 * MPIR_CVAR_QMPI_TOOL_LIST, it counts the calls of the functions below that reach it, the
 * program's and (behind tardy) tardy's own, and prints them at MPI_Finalize as
 * "qtool rank R: MPI_Barrier=B MPI_Send=S ...". */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>

/* name, enum, parameters, arguments for the next tool */
#define COUNTED(X)                                                                            \
    X(Barrier, BARRIER, (QMPI_Context context, int tool_id, MPI_Comm comm), (context, id, comm)) \
    X(Send, SEND, (QMPI_Context context, int tool_id, const void *buf, int count,            \
                   MPI_Datatype type, int dest, int tag, MPI_Comm comm),                     \
      (context, id, buf, count, type, dest, tag, comm))                                       \
    X(Recv, RECV, (QMPI_Context context, int tool_id, void *buf, int count, MPI_Datatype type, \
                   int src, int tag, MPI_Comm comm, MPI_Status *st),                         \
      (context, id, buf, count, type, src, tag, comm, st))                                    \
    X(Isend, ISEND, (QMPI_Context context, int tool_id, const void *buf, int count,          \
                     MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), \
      (context, id, buf, count, type, dest, tag, comm, req))                                  \
    X(Irecv, IRECV, (QMPI_Context context, int tool_id, void *buf, int count,                \
                     MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req),  \
      (context, id, buf, count, type, src, tag, comm, req))                                   \
    X(Test, TEST, (QMPI_Context context, int tool_id, MPI_Request *req, int *flag,           \
                   MPI_Status *st),                                                           \
      (context, id, req, flag, st))                                                           \
    X(Allreduce, ALLREDUCE, (QMPI_Context context, int tool_id, const void *sb, void *rb,    \
                             int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),         \
      (context, id, sb, rb, count, type, op, comm))                                           \
    X(Iallreduce, IALLREDUCE, (QMPI_Context context, int tool_id, const void *sb, void *rb,  \
                               int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,        \
                               MPI_Request *req),                                             \
      (context, id, sb, rb, count, type, op, comm, req))                                      \
    X(Ireduce, IREDUCE, (QMPI_Context context, int tool_id, const void *sb, void *rb,        \
                         int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,    \
                         MPI_Request *req),                                                   \
      (context, id, sb, rb, count, type, op, root, comm, req))                                \
    X(Comm_rank, COMM_RANK, (QMPI_Context context, int tool_id, MPI_Comm comm, int *rank),   \
      (context, id, comm, rank))                                                              \
    X(Comm_size, COMM_SIZE, (QMPI_Context context, int tool_id, MPI_Comm comm, int *size),   \
      (context, id, comm, size))                                                              \
    X(Comm_dup, COMM_DUP, (QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Comm *dup), \
      (context, id, comm, dup))                                                               \
    X(Comm_idup, COMM_IDUP, (QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Comm *dup, \
                             MPI_Request *req),                                               \
      (context, id, comm, dup, req))                                                          \
    X(Comm_split, COMM_SPLIT, (QMPI_Context context, int tool_id, MPI_Comm comm, int color,  \
                               int key, MPI_Comm *out),                                       \
      (context, id, comm, color, key, out))                                                   \
    X(Comm_free, COMM_FREE, (QMPI_Context context, int tool_id, MPI_Comm *comm),             \
      (context, id, comm))                                                                    \
    X(Type_size, TYPE_SIZE, (QMPI_Context context, int tool_id, MPI_Datatype type, int *n),  \
      (context, id, type, n))                                                                 \
    X(T_init_thread, T_INIT_THREAD, (QMPI_Context context, int tool_id, int required,        \
                                     int *provided),                                          \
      (context, id, required, provided))

#define INDEX(name, NAME, params, args) F_##name,
enum { COUNTED(INDEX) NFUNCS };

#define STRING(name, NAME, params, args) "MPI_" #name,
static const char *const names[NFUNCS] = {COUNTED(STRING)};
static atomic_long counts[NFUNCS];

#define WRAP(name, NAME, params, args)                                                        \
    static int q_##name params                                                                \
    {                                                                                         \
        QMPI_##name##_t *next;                                                                \
        int id;                                                                               \
        QMPI_Get_function(tool_id, MPI_##NAME##_T, (void (**)(void))&next, &id);              \
        atomic_fetch_add(&counts[F_##name], 1);                                               \
        return next args;                                                                     \
    }
COUNTED(WRAP)

static int q_finalize(QMPI_Context context, int tool_id)
{
    QMPI_Finalize_t *next;
    QMPI_Comm_rank_t *rank_fn;
    int next_id, rank_id, rank = -1;
    QMPI_Get_function(tool_id, MPI_COMM_RANK_T, (void (**)(void))&rank_fn, &rank_id);
    rank_fn(context, rank_id, MPI_COMM_WORLD, &rank);
    char line[2048];
    int n = snprintf(line, sizeof line, "qtool rank %d:", rank);
    for (int i = 0; i < NFUNCS && n > 0 && (size_t)n < sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s=%ld", names[i],
                      atomic_load(&counts[i]));
    fprintf(stderr, "%s\n", line);
    QMPI_Get_function(tool_id, MPI_FINALIZE_T, (void (**)(void))&next, &next_id);
    return next(context, next_id);
}

#define REGISTER(name, NAME, params, args)                                                    \
    QMPI_Register_function(tool_id, MPI_##NAME##_T, (void (*)(void))q_##name);

static void init(int tool_id)
{
    COUNTED(REGISTER)
    QMPI_Register_function(tool_id, MPI_FINALIZE_T, (void (*)(void))q_finalize);
}

__attribute__((constructor)) static void load(void)
{
    QMPI_Register_tool_name("qtool", init);
}
