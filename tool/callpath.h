/* Call paths: the application's return addresses above an MPI call, captured with libunwind
 * and interned to small ids at run time. Lookups are lock-free; only a new path takes a lock.
 * Paths are symbolized (symbolize.h) only at finalize. */
#ifndef TARDY_CALLPATH_H
#define TARDY_CALLPATH_H

#include <stdint.h>

#define CS_NONE 0     /* depth 0: no call path is taken */
#define CS_OVERFLOW 1 /* the table is full: all further paths share this id */
#define CS_MAX_DEPTH 64

/* Size the table for max_paths paths of up to depth frames. Returns 0 on success, -1 when
 * memory is short (call paths are then off and every call gets CS_NONE). */
int cs_init(int depth, int max_paths);
void cs_fini(void);

/* Intern the call path of the MPI call whose wrapper was called from return address ra
 * (__builtin_return_address(0) in the wrapper); sp is any address in the wrapper's own stack
 * frame (it keys a per-thread cache of recent paths). Frames inside the MPI library right
 * above ra (the mpi_f08 bindings calling the C entry points) are skipped too. ra NULL (QMPI
 * functions): the path starts above the MPI library's frames and other tools'. */
uint32_t cs_capture(void *ra, const void *sp);

/* Number of ids handed out so far (ids are 0 .. cs_count()-1). */
uint32_t cs_count(void);

/* Frames of path id, innermost (the MPI call site) first; returns the frame count. */
int cs_frames(uint32_t id, const uintptr_t **pcs);

#endif
