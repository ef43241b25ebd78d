/* Memory the MPI library allocates (docs/design.md 3.7): the malloc family, anonymous mmap/mremap/
 * munmap and System V segments the process creates (shmat/shmdt) are interposed; an
 * allocation made while a PMPI call runs on the thread is charged to that call's site, and
 * its release (whichever call or thread frees it) is charged back to the same site.
 * Allocations outside MPI pay one thread-local load; frees one counter load. */
#ifndef TARDY_MEMORY_H
#define TARDY_MEMORY_H

#include <stdint.h>

struct mem_site {
    uint64_t site;                 /* SITE(fn, callpath) */
    uint64_t allocs;
    int64_t alloc_bytes, freed_bytes, live_bytes;
};

/* Start tracking (before MPI_Init, so MPI_Init's own allocations count). Returns 0, or -1 when
 * tracking is off (another malloc replaces ours, or no memory for the tables); the reason is
 * in *why. */
int mem_start(const char **why);
/* Stop charging new allocations (at finalize); the statistics stay readable. */
void mem_stop(void);

/* One thread makes all MPI calls (MPI_THREAD_SINGLE or FUNNELED): it may keep its newest
 * blocks and their counters to itself; the tables are read on that thread. */
void mem_solo(int yes);

/* A copy of the counters of every site that allocated (caller frees *out); returns the
 * number of sites, -1 when memory is short. */
int mem_snapshot(struct mem_site **out);
/* Bytes held by the MPI library now, its high-water mark, and allocations not tracked
 * because the table of live blocks was full. */
int64_t mem_live_total(void);
int64_t mem_high_water(void);
uint64_t mem_untracked(void);

#endif
