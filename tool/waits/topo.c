/* A communicator's topology as its shadow needs it: the shadow is a duplicate and so has the
 * same topology (cartesian, graph, distributed graph) and neighbours, and a neighbourhood
 * collective's records travel between the same ranks as its data (neigh.c), one record from
 * each in-neighbour. */
#include "mpit/own/own.h"
#include "ws_exchange.h"

int ws_topo_in(MPI_Comm comm)
{
    int topo = MPI_UNDEFINED, n = -1;
    own_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        own_Cartdim_get(comm, &n);
        n *= 2;   /* a neighbour on each side of each dimension (MPI_PROC_NULL at an edge) */
    } else if (topo == MPI_GRAPH) {
        int rank;
        own_Comm_rank(comm, &rank);
        own_Graph_neighbors_count(comm, rank, &n);
    } else if (topo == MPI_DIST_GRAPH) {
        int out, weighted;
        own_Dist_graph_neighbors_count(comm, &n, &out, &weighted);
    }
    return n;
}
