/* How crowded each rank's host is, for the summary's note on oversubscription: with more
 * ranks than CPUs on a host, an MPI library that busy-polls while it waits competes with the
 * ranks that compute, and most waiting shows up as MPI time. */
#include "report.h"

#include <stdlib.h>
#include <unistd.h>

#include "mpit/own/own.h"

int host_load_launcher_ranks(void)
{
#ifdef OMPI_MAJOR_VERSION
    const char *v = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
#else
    const char *v = getenv("MPI_LOCALNRANKS"); /* Hydra's, MPICH's launcher */
#endif
    char *end;
    long n = v ? strtol(v, &end, 10) : 0;
    int size = 0;
    own_Comm_size(MPI_COMM_WORLD, &size);
    return v && *v && !*end && n >= 1 && n <= size ? (int)n : 0;
}

/* The ranks of comm on this host: a shared-memory split (no nonblocking form; MPICH's took
 * 0.5 s at 8 ranks on 2 cores). Collective over comm; 0 when it failed. */
static int split_count(MPI_Comm comm)
{
    MPI_Comm host;
    int ranks = 0;
    if (own_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) != MPI_SUCCESS)
        return 0;
    own_Comm_size(host, &ranks);
    own_Comm_free(&host);
    return ranks;
}

int host_load_rows(struct rowset *rs, MPI_Comm comm, int rank, int host_ranks)
{
    int ranks = host_ranks ? host_ranks : red_alone(comm) ? 1 : split_count(comm);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!ranks || cpus < 1)
        return -1;
    if (collect_rank_metric(rs, "host_ranks", ranks, rank) < 0 ||
        collect_rank_metric(rs, "host_cpus", (double)cpus, rank) < 0 ||
        collect_rank_metric(rs, "ranks_per_cpu", (double)ranks / (double)cpus, rank) < 0)
        return -1;
    return 0;
}
