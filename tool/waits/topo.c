/* The shadow of a communicator with a topology (cartesian, graph, distributed graph): a copy
 * with the same neighbours, so that a neighbourhood collective's records travel between the
 * same ranks as its data (neigh.c), and a buffer for one record per in-neighbour. */
#include <stdlib.h>

#include "mpit/own/own.h"
#include "ws_exchange.h"

/* The in-neighbours of comm's own rank, and its out-neighbours (arrays of n_in + n_out + 1
 * ints, freed by the caller; NULL: out of memory). n_in -1: comm has no topology. */
static int *neighbours(MPI_Comm comm, int *n_in, int *n_out)
{
    int topo = MPI_UNDEFINED, *nb = NULL;
    *n_in = *n_out = -1;
    own_Topo_test(comm, &topo);
    if (topo == MPI_GRAPH) {
        int rank, n;
        own_Comm_rank(comm, &rank);
        own_Graph_neighbors_count(comm, rank, &n);
        if ((nb = malloc((size_t)(2 * n + 1) * sizeof *nb))) {
            own_Graph_neighbors(comm, rank, n, nb);
            for (int i = 0; i < n; i++)
                nb[n + i] = nb[i];
        }
        *n_in = *n_out = n;
    } else if (topo == MPI_DIST_GRAPH) {
        int in, out, weighted, *wt;
        own_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
        nb = malloc((size_t)(in + out + 1) * sizeof *nb);
        wt = malloc((size_t)(in + out + 1) * sizeof *wt);
        if (nb && wt)
            own_Dist_graph_neighbors(comm, in, nb, weighted ? wt : MPI_UNWEIGHTED, out,
                                      nb + in, weighted ? wt + in : MPI_UNWEIGHTED);
        free(wt);
        if (!wt) {
            free(nb);
            nb = NULL;
        }
        *n_in = in;
        *n_out = out;
    }
    return nb;
}

void ws_topo_shadow(MPI_Comm comm, MPI_Comm *shadow, int *n_in, struct ws_msg **buf)
{
    int topo = MPI_UNDEFINED, in = -1, out = -1, ok = 1, all = 0, *nb = NULL, *cart = NULL;
    own_Topo_test(comm, &topo);
    *n_in = -1;
    *buf = NULL;
    if (topo != MPI_CART && topo != MPI_GRAPH && topo != MPI_DIST_GRAPH)
        return;
    if (topo == MPI_CART) {
        int nd = 0;
        own_Cartdim_get(comm, &nd);
        if ((cart = malloc((size_t)(3 * nd + 1) * sizeof *cart)))
            own_Cart_get(comm, nd, cart, cart + nd, cart + 2 * nd);
        in = out = 2 * nd;
        ok = cart != NULL;
    } else {
        nb = neighbours(comm, &in, &out);
        ok = nb != NULL;
    }
    struct ws_msg *b = malloc((size_t)(in + 1) * sizeof *b);
    ok = ok && b;
    own_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, *shadow);
    MPI_Comm t = MPI_COMM_NULL;
    if (all && topo == MPI_CART)
        own_Cart_create(*shadow, in / 2, cart, cart + in / 2, 0, &t);
    else if (all) {
        /* Open MPI's MPI_UNWEIGHTED points at a zero-length array, which GCC takes for an
         * overread once the call is inlined: read it through a volatile. */
        int *volatile unweighted = MPI_UNWEIGHTED;
        own_Dist_graph_create_adjacent(*shadow, in, nb, unweighted, out, nb + in, unweighted,
                                        MPI_INFO_NULL, 0, &t);
    }
    free(cart);
    free(nb);
    if (t == MPI_COMM_NULL) { /* not on every rank: neighbourhood waits are not measured */
        free(b);
        return;
    }
    own_Comm_free(shadow);
    *shadow = t;
    *n_in = in;
    *buf = b;
}
