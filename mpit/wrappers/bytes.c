/* Byte counts of collective calls. */
#include "bytes.h"

int64_t by_status_asked(const MPI_Status *st)
{
    MPI_Count n = 0;
    if (own_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (int64_t)n;
}

/* Number of ranks a rank exchanges with in a collective on comm (remote group size for an
 * inter-communicator), and this rank in comm. */
static int group_size(MPI_Comm comm)
{
    int inter = 0, n = 0;
    own_Comm_test_inter(comm, &inter);
    if (inter)
        own_Comm_remote_size(comm, &n);
    else
        own_Comm_size(comm, &n);
    return n;
}

static int my_rank(MPI_Comm comm)
{
    int r = 0;
    own_Comm_rank(comm, &r);
    return r;
}

static int is_inter(MPI_Comm comm)
{
    int inter = 0;
    own_Comm_test_inter(comm, &inter);
    return inter;
}

/* Role in a rooted collective: 1 root, 0 non-root, -1 no part (inter-communicator
 * MPI_PROC_NULL). */
static int rooted_role(int root, MPI_Comm comm)
{
    if (is_inter(comm))
        return root == MPI_ROOT ? 1 : root == MPI_PROC_NULL ? -1 : 0;
    return root == my_rank(comm);
}

static int64_t sum_counts(const int counts[], int n, MPI_Datatype t)
{
    int64_t total = 0;
    if (!counts)
        return 0;
    for (int i = 0; i < n; i++)
        total += counts[i];
    return by_count(total, t);
}

static int64_t sum_counts_w(const int counts[], const MPI_Datatype t[], int n)
{
    int64_t total = 0;
    if (!counts || !t)
        return 0;
    for (int i = 0; i < n; i++)
        total += by_count(counts[i], t[i]);
    return total;
}

void by_bcast(struct ev_call *c, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    int role = rooted_role(root, comm);
    c->root = root;
    if (role == 1)
        c->sent = by_count(count, t);
    else if (role == 0)
        c->recv = by_count(count, t);
}

void by_reduce(struct ev_call *c, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    int role = rooted_role(root, comm);
    c->root = root;
    int64_t b = by_count(count, t);
    if (role == 1)
        c->recv = b;
    if (role == 0 || (role == 1 && !is_inter(comm)))
        c->sent = b;
}

void by_allreduce(struct ev_call *c, int count, MPI_Datatype t)
{
    c->sent = c->recv = by_count(count, t);
}

void by_reduce_scatter(struct ev_call *c, const int recvcounts[], MPI_Datatype t, MPI_Comm comm)
{
    int n = 0;
    own_Comm_size(comm, &n);
    c->sent = sum_counts(recvcounts, n, t);
    c->recv = by_count(recvcounts[my_rank(comm)], t);
}

void by_reduce_scatter_block(struct ev_call *c, int recvcount, MPI_Datatype t, MPI_Comm comm)
{
    int n = 0;
    own_Comm_size(comm, &n);
    c->recv = by_count(recvcount, t);
    c->sent = c->recv * n;
}

void by_gather(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
               int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{
    int role = rooted_role(root, comm);
    c->root = root;
    if (role == 1)
        c->recv = by_count(rcount, rt) * group_size(comm);
    if (role == 0 || (role == 1 && !is_inter(comm) && sendbuf != MPI_IN_PLACE))
        c->sent = by_count(scount, st);
}

void by_gatherv(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                const int rcounts[], MPI_Datatype rt, int root, MPI_Comm comm)
{
    int role = rooted_role(root, comm);
    c->root = root;
    if (role == 1)
        c->recv = sum_counts(rcounts, group_size(comm), rt);
    if (role == 0 || (role == 1 && !is_inter(comm) && sendbuf != MPI_IN_PLACE))
        c->sent = by_count(scount, st);
}

void by_scatter(struct ev_call *c, int scount, MPI_Datatype st, const void *recvbuf,
                int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{
    int role = rooted_role(root, comm);
    c->root = root;
    if (role == 1)
        c->sent = by_count(scount, st) * group_size(comm);
    if (role == 0 || (role == 1 && !is_inter(comm) && recvbuf != MPI_IN_PLACE))
        c->recv = by_count(rcount, rt);
}

void by_scatterv(struct ev_call *c, const int scounts[], MPI_Datatype st, const void *recvbuf,
                 int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{
    int role = rooted_role(root, comm);
    c->root = root;
    if (role == 1)
        c->sent = sum_counts(scounts, group_size(comm), st);
    if (role == 0 || (role == 1 && !is_inter(comm) && recvbuf != MPI_IN_PLACE))
        c->recv = by_count(rcount, rt);
}

void by_allgather(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                  int rcount, MPI_Datatype rt, MPI_Comm comm)
{
    c->sent = sendbuf == MPI_IN_PLACE ? by_count(rcount, rt) : by_count(scount, st);
    c->recv = by_count(rcount, rt) * group_size(comm);
}

void by_allgatherv(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                   const int rcounts[], MPI_Datatype rt, MPI_Comm comm)
{
    c->sent = sendbuf == MPI_IN_PLACE ? by_count(rcounts[my_rank(comm)], rt)
                                      : by_count(scount, st);
    c->recv = sum_counts(rcounts, group_size(comm), rt);
}

void by_alltoall(struct ev_call *c, const void *sendbuf, int scount, MPI_Datatype st,
                 int rcount, MPI_Datatype rt, MPI_Comm comm)
{
    int n = group_size(comm);
    c->recv = by_count(rcount, rt) * n;
    c->sent = sendbuf == MPI_IN_PLACE ? c->recv : by_count(scount, st) * n;
}

void by_alltoallv(struct ev_call *c, const void *sendbuf, const int scounts[], MPI_Datatype st,
                  const int rcounts[], MPI_Datatype rt, MPI_Comm comm)
{
    int n = group_size(comm);
    c->recv = sum_counts(rcounts, n, rt);
    c->sent = sendbuf == MPI_IN_PLACE ? c->recv : sum_counts(scounts, n, st);
}

void by_alltoallw(struct ev_call *c, const void *sendbuf, const int scounts[],
                  const MPI_Datatype st[], const int rcounts[], const MPI_Datatype rt[],
                  MPI_Comm comm)
{
    int n = group_size(comm);
    c->recv = sum_counts_w(rcounts, rt, n);
    c->sent = sendbuf == MPI_IN_PLACE ? c->recv : sum_counts_w(scounts, st, n);
}

/* In- and out-degree of a process topology (0 when comm has none). */
static void degrees(MPI_Comm comm, int *in, int *out)
{
    int kind = MPI_UNDEFINED, weighted;
    *in = *out = 0;
    own_Topo_test(comm, &kind);
    if (kind == MPI_CART) {
        own_Cartdim_get(comm, in);
        *in *= 2;
        *out = *in;
    } else if (kind == MPI_GRAPH) {
        own_Graph_neighbors_count(comm, my_rank(comm), in);
        *out = *in;
    } else if (kind == MPI_DIST_GRAPH) {
        own_Dist_graph_neighbors_count(comm, in, out, &weighted);
    }
}

void by_neighbor(struct ev_call *c, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
                 MPI_Comm comm)
{
    int in, out;
    degrees(comm, &in, &out);
    c->sent = by_count(scount, st) * out;
    c->recv = by_count(rcount, rt) * in;
}

void by_neighborv(struct ev_call *c, const int scounts[], MPI_Datatype st,
                  const int rcounts[], MPI_Datatype rt, MPI_Comm comm)
{
    int in, out;
    degrees(comm, &in, &out);
    c->sent = sum_counts(scounts, out, st);
    c->recv = sum_counts(rcounts, in, rt);
}

void by_neighbor_allgatherv(struct ev_call *c, int scount, MPI_Datatype st,
                            const int rcounts[], MPI_Datatype rt, MPI_Comm comm)
{
    int in, out;
    degrees(comm, &in, &out);
    c->sent = by_count(scount, st) * out;
    c->recv = sum_counts(rcounts, in, rt);
}

void by_neighborw(struct ev_call *c, const int scounts[], const MPI_Datatype st[],
                  const int rcounts[], const MPI_Datatype rt[], MPI_Comm comm)
{
    int in, out;
    degrees(comm, &in, &out);
    c->sent = sum_counts_w(scounts, st, out);
    c->recv = sum_counts_w(rcounts, rt, in);
}
