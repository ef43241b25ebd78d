/* A second QMPI tool for the tests only: stacked in front of or behind tardy through
 * MPIR_CVAR_QMPI_TOOL_LIST, it counts the program's MPI_Barrier calls on MPI_COMM_WORLD (tardy
 * uses its own communicator) and MPI_Send calls on any communicator it sees, and prints the
 * counts at MPI_Finalize as "qtool rank R: barriers B sends S". */
#include <mpi.h>
#include <stdio.h>

static long barriers, sends;

static int q_barrier(QMPI_Context context, int tool_id, MPI_Comm comm)
{
    QMPI_Barrier_t *next;
    int next_id;
    QMPI_Get_function(tool_id, MPI_BARRIER_T, (void (**)(void))&next, &next_id);
    if (comm == MPI_COMM_WORLD)
        barriers++;
    return next(context, next_id, comm);
}

static int q_send(QMPI_Context context, int tool_id, const void *buf, int count,
                  MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    QMPI_Send_t *next;
    int next_id;
    QMPI_Get_function(tool_id, MPI_SEND_T, (void (**)(void))&next, &next_id);
    sends++;
    return next(context, next_id, buf, count, type, dest, tag, comm);
}

static int q_finalize(QMPI_Context context, int tool_id)
{
    QMPI_Finalize_t *next;
    QMPI_Comm_rank_t *rank_fn;
    int next_id, rank_id, rank = -1;
    QMPI_Get_function(tool_id, MPI_COMM_RANK_T, (void (**)(void))&rank_fn, &rank_id);
    rank_fn(context, rank_id, MPI_COMM_WORLD, &rank);
    fprintf(stderr, "qtool rank %d: barriers %ld sends %ld\n", rank, barriers, sends);
    QMPI_Get_function(tool_id, MPI_FINALIZE_T, (void (**)(void))&next, &next_id);
    return next(context, next_id);
}

static void init(int tool_id)
{
    QMPI_Register_function(tool_id, MPI_BARRIER_T, (void (*)(void))q_barrier);
    QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))q_send);
    QMPI_Register_function(tool_id, MPI_FINALIZE_T, (void (*)(void))q_finalize);
}

__attribute__((constructor)) static void load(void)
{
    QMPI_Register_tool_name("qtool", init);
}
