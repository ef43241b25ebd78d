/* The shadow of a communicator with a topology (cartesian, graph, distributed graph): made by
 * the topology's constructor on the communicator itself (no attributes are copied, and one
 * creation instead of a copy and then its topology), with the same neighbours, so that a
 * neighbourhood collective's records travel between the same ranks as its data (neigh.c),
 * and a buffer for one record per in-neighbour. */
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

int ws_topo_read(MPI_Comm comm, struct ws_topo *t)
{
    int topo = MPI_UNDEFINED;
    *t = (struct ws_topo){.kind = MPI_UNDEFINED, .in = -1, .out = -1};
    own_Topo_test(comm, &topo);
    if (topo != MPI_CART && topo != MPI_GRAPH && topo != MPI_DIST_GRAPH)
        return 0;
    int ok;
    if (topo == MPI_CART) {
        int nd = 0;
        own_Cartdim_get(comm, &nd);
        if ((t->cart = malloc((size_t)(3 * nd + 1) * sizeof *t->cart)))
            own_Cart_get(comm, nd, t->cart, t->cart + nd, t->cart + 2 * nd);
        t->in = t->out = 2 * nd;
        t->kind = MPI_CART;
        ok = t->cart != NULL;
    } else {
        t->nb = neighbours(comm, &t->in, &t->out);
        t->kind = MPI_DIST_GRAPH; /* a graph's copy is the distributed graph of its edges */
        ok = t->nb != NULL;
    }
    t->buf = malloc((size_t)(t->in + 1) * sizeof *t->buf);
    if (ok && t->buf)
        return 1;
    ws_topo_free(t);
    free(t->buf);
    t->buf = NULL;
    return -1;
}

MPI_Comm ws_topo_make(MPI_Comm comm, const struct ws_topo *t)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc;
    if (t->kind == MPI_CART) {
        rc = own_Cart_create(comm, t->in / 2, t->cart, t->cart + t->in / 2, 0, &c);
    } else {
        /* Open MPI's MPI_UNWEIGHTED points at a zero-length array, which GCC takes for an
         * overread once the call is inlined: read it through a volatile. */
        int *volatile unweighted = MPI_UNWEIGHTED;
        rc = own_Dist_graph_create_adjacent(comm, t->in, t->nb, unweighted, t->out,
                                            t->nb + t->in, unweighted, MPI_INFO_NULL, 0, &c);
    }
    return rc == MPI_SUCCESS ? c : MPI_COMM_NULL;
}

void ws_topo_free(struct ws_topo *t)
{
    free(t->cart);
    free(t->nb);
    t->cart = t->nb = NULL;
}
