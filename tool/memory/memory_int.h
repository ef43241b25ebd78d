/* Between memory.c and memory_ucm.c: what a call seen through UCX's memory hooks charges or
 * releases. Not for the rest of the tool. */
#ifndef TARDY_MEMORY_INT_H
#define TARDY_MEMORY_INT_H

#include <stddef.h>

/* Inside tardy's own mmap/munmap/mremap/shmat/shmdt on this thread (the call is counted
 * there). */
int mem_in_map(void);
/* A new anonymous mapping, a System V attach, a release: as tardy's interposers do. */
void mem_charge_map(void *p, size_t len);
void mem_charge_shm(void *p, int id);
void mem_release(const void *p);
/* The pages [p, p + len) are unmapped: the parts of the mappings listed there are released. */
void mem_unmap(const void *p, size_t len);
/* Register with UCX's memory events when the process has UCX (memory_ucm.c). */
void mem_ucm_attach(void);

#endif
