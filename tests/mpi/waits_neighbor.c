/* Wait states of neighbourhood collectives, ground truth by construction: before each
 * operation some ranks busy-wait (the last rank DELAY, odd ranks DELAY/3), so that every rank
 * either clearly waits for an in-neighbour or enters after all of them. Each rank's true wait
 * comes from its in-neighbours' enter times (exchanged afterwards over the same topology);
 * rank 0 prints "truth SCENARIO RANK SECONDS LATE" (LATE: the rank one waited longest for)
 * and "data ok" when every neighbourhood collective delivered the right values.
 * Topologies: a periodic 1-D cartesian ring, a graph chain 0-1-..-last, a directed
 * distributed-graph ring (in-neighbour rank-1), and a duplicate of that ring. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define DELAY 0.15

static int rank, size, last, bad;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void busy(void)
{
    double s = rank == last ? DELAY : rank % 2 ? DELAY / 3 : 0, end = now() + s;
    while (now() < end)
        ;
}

/* The true wait of each rank in a neighbourhood collective on comm entered at e (the
 * completing call entered at ew, left at l), against its in-neighbours' times t. */
static void truth(const char *name, MPI_Comm comm, double t, double ew, double l)
{
    double in[64], late = -1, wait, all[64], latest = -1;
    int indeg, outdeg, weighted, src[64], topo, lates[64];
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        indeg = 2;
        MPI_Cart_shift(comm, 0, 1, &src[0], &src[1]);
    } else if (topo == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, rank, &indeg);
        MPI_Graph_neighbors(comm, rank, 64, src);
    } else {
        MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
        int dst[64];
        int *volatile unweighted = MPI_UNWEIGHTED; /* Open MPI's: see tool/waits/neigh.c */
        MPI_Dist_graph_neighbors(comm, 64, src, unweighted, 64, dst, unweighted);
    }
    for (int i = 0; i < indeg; i++)
        in[i] = -1;
    MPI_Neighbor_allgather(&t, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, comm); /* @site tnb */
    for (int i = 0; i < indeg; i++)
        if (in[i] > latest) {
            latest = in[i];
            late = src[i];
        }
    wait = (latest < l ? latest : l) - ew;
    wait = wait > 0 ? wait : 0;
    int mylate = wait > 0 ? (int)late : -1;
    MPI_Gather(&wait, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* @site tg */
    MPI_Gather(&mylate, 1, MPI_INT, lates, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int who = -1;
        double most = 0;
        for (int r = 0; r < size; r++)
            if (all[r] > most) {
                most = all[r];
                who = lates[r];
            }
        for (int r = 0; r < size; r++)
            printf("truth %s %d %.9f %d\n", name, r, all[r], who);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    last = size - 1;
    double e, l, ew, in[64];
    int rin[64];

    /* cartesian ring, MPI_Neighbor_allgather */
    MPI_Comm cart;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Barrier(cart); /* @site sync_cart */
    busy();
    e = now();
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, rin, 1, MPI_INT, cart); /* @site op_cart */
    l = now();
    int lo, hi;
    MPI_Cart_shift(cart, 0, 1, &lo, &hi);
    bad |= rin[0] != lo || rin[1] != hi;
    truth("cart", cart, e, e, l);

    /* graph chain, MPI_Neighbor_alltoall (MPI_Graph_create) */
    MPI_Comm graph;
    int index[64], edges[128], ne = 0;
    for (int r = 0; r < size; r++) {
        if (r > 0)
            edges[ne++] = r - 1;
        if (r < last)
            edges[ne++] = r + 1;
        index[r] = ne;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    int sv[2] = {rank * 10, rank * 10 + 1}, rv[2] = {-1, -1}, nn;
    MPI_Graph_neighbors_count(graph, rank, &nn);
    MPI_Barrier(graph); /* @site sync_graph */
    busy();
    e = now();
    MPI_Neighbor_alltoall(sv, 1, MPI_INT, rv, 1, MPI_INT, graph); /* @site op_graph */
    l = now();
    /* the chain's first neighbour is rank-1 (sends its 2nd value to us), else rank+1 */
    if (rank > 0)
        bad |= rv[0] != (rank - 1) * 10 + (rank - 1 > 0 ? 1 : 0);
    truth("graph", graph, e, e, l);

    /* directed distributed-graph ring, MPI_Ineighbor_allgather + MPI_Wait */
    MPI_Comm dg;
    int src = (rank + size - 1) % size, dst = (rank + 1) % size;
    int *volatile unweighted = MPI_UNWEIGHTED; /* Open MPI's: see tool/waits/neigh.c */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, unweighted, 1, &dst, unweighted,
                                   MPI_INFO_NULL, 0, &dg);
    MPI_Request req;
    double mine = rank;
    MPI_Barrier(dg); /* @site sync_dg */
    busy();
    e = now();
    MPI_Ineighbor_allgather(&mine, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, dg, &req); /* @site op_dg */
    ew = now();
    MPI_Wait(&req, MPI_STATUS_IGNORE); /* @site op_dgwait */
    l = now();
    bad |= in[0] != src;
    truth("dist_graph", dg, e, ew, l);

    /* a duplicate of the ring (its topology, and no attribute copied again), blocking */
    MPI_Comm dgdup;
    MPI_Comm_dup(dg, &dgdup);
    MPI_Barrier(dgdup); /* @site sync_dgdup */
    busy();
    e = now();
    MPI_Neighbor_allgather(&mine, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, dgdup); /* @site op_dgdup */
    l = now();
    bad |= in[0] != src;
    truth("dist_graph_dup", dgdup, e, e, l);

    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (rank == 0 && !anybad)
        printf("data ok\n");
    MPI_Comm_free(&cart);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&dg);
    MPI_Comm_free(&dgdup);
    MPI_Finalize();
    return 0;
}
