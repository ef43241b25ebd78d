/* How crowded each rank's host is, for the summary's note on oversubscription: with more
 * ranks than CPUs on a host, an MPI library that busy-polls while it waits competes with the
 * ranks that compute, and most waiting shows up as MPI time. */
#include "report.h"

#include <unistd.h>

#include "mpit/own/own.h"

int host_load_rows(struct rowset *rs, MPI_Comm comm, int rank)
{
    MPI_Comm host;
    int ranks = 0;
    if (own_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) != MPI_SUCCESS)
        return -1;
    own_Comm_size(host, &ranks);
    own_Comm_free(&host);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        return -1;
    if (collect_rank_metric(rs, "host_ranks", ranks, rank) < 0 ||
        collect_rank_metric(rs, "host_cpus", (double)cpus, rank) < 0 ||
        collect_rank_metric(rs, "ranks_per_cpu", (double)ranks / (double)cpus, rank) < 0)
        return -1;
    return 0;
}
