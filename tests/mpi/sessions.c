/* An MPI 4 program of the sessions model alone (no MPI_Init): a communicator of every process
 * from the group of "mpi://WORLD", one Allreduce on it. Prints "ok N" (N processes) on the
 * first process; built only where mpi.h is MPI 4 (prints "no sessions" elsewhere). */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
#if MPI_VERSION >= 4
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    int one = 1, n = 0, rank;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "tardy.tests.sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, c);
    MPI_Comm_rank(c, &rank);
    if (rank == 0)
        printf("ok %d\n", n);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
#else
    printf("no sessions\n");
#endif
    return 0;
}
