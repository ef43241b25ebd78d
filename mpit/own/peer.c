/* Communicator rank → world rank with a direct-mapped per-thread cache. A generation counter
 * bumped on every communicator free invalidates all caches, since handles are reused. */
#include "own.h"

#include <stdatomic.h>
#include <stdint.h>


#define CACHE_SLOTS 256

struct entry {
    MPI_Comm comm;
    int rank, world;
    unsigned gen;
};

static struct {
    MPI_Group world;        /* MPI_COMM_WORLD's group, between pr_init and pr_fini */
    atomic_uint generation; /* bumped when a communicator is freed: every cache is stale */
} pr = {.world = MPI_GROUP_NULL, .generation = 1};
static _Thread_local struct entry cache[CACHE_SLOTS];

void pr_init(void)
{
    own_Comm_group(MPI_COMM_WORLD, &pr.world);
}

void pr_fini(void)
{
    if (pr.world != MPI_GROUP_NULL)
        own_Group_free(&pr.world);
}

void pr_forget(MPI_Comm comm)
{
    (void)comm;
    atomic_fetch_add(&pr.generation, 1);
}

static int translate(MPI_Comm comm, int r)
{
    int inter = 0, world = r;
    MPI_Group g;
    own_Comm_test_inter(comm, &inter);
    if ((inter ? own_Comm_remote_group(comm, &g) : own_Comm_group(comm, &g)) != MPI_SUCCESS)
        return r;
    if (own_Group_translate_ranks(g, 1, &r, pr.world, &world) != MPI_SUCCESS ||
        world == MPI_UNDEFINED)
        world = r;
    own_Group_free(&g);
    return world;
}

int pr_world(MPI_Comm comm, int r)
{
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL || pr.world == MPI_GROUP_NULL)
        return r;
    uintptr_t key = 0;
    _Static_assert(sizeof comm <= sizeof key, "communicator handle fits a word");
    __builtin_memcpy(&key, &comm, sizeof comm);
    struct entry *e = &cache[(key * 31u + (unsigned)r * 0x9e3779b1u) % CACHE_SLOTS];
    unsigned gen = atomic_load_explicit(&pr.generation, memory_order_relaxed);
    if (e->gen == gen && e->comm == comm && e->rank == r)
        return e->world;
    e->comm = comm;
    e->rank = r;
    e->world = translate(comm, r);
    e->gen = gen;
    return e->world;
}
