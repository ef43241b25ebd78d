/* Call paths that only one frame tells apart, reached at the same stack position: tardy's
 * per-thread cache of call paths (keyed by the call site and the stack position, confirmed by
 * re-reading the return addresses) must still count each path apart, whichever of the frames
 * kept at TARDY_DEPTH=8 differs, and merge paths that differ only beyond them. The checker
 * (tests/cases/mpi.py) finds the call site by its @site marker and the paths by their
 * functions. */
#include <mpi.h>

#define N 50

/* Keeps a function's frame on the stack (no tail call) and its body apart from its twin's. */
#define STAY() __asm__ volatile("" ::: "memory")

static __attribute__((noipa)) void leaf(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* @site leaf */
    STAY();
}

/* Frame 1 (the caller of the call site) differs. */
static __attribute__((noipa)) void near_a(void) { leaf(); STAY(); }
static __attribute__((noipa)) void near_b(void) { leaf(); STAY(); }

/* Six levels, then frame 7 (the last one kept) or frame 8 (the first one dropped) differs. */
static __attribute__((noipa)) void down(int levels)
{
    if (levels > 0)
        down(levels - 1);
    else
        leaf();
    STAY();
}
static __attribute__((noipa)) void far_a(void) { down(5); STAY(); }
static __attribute__((noipa)) void far_b(void) { down(5); STAY(); }
static __attribute__((noipa)) void beyond_a(void) { far_a(); STAY(); }
static __attribute__((noipa)) void beyond_b(void) { far_a(); STAY(); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    void (*const pairs[3][2])(void) = {{near_a, near_b}, {far_a, far_b}, {beyond_a, beyond_b}};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < 2 * N; i++)
            pairs[p][i % 2](); /* one call instruction: the same stack position for both */
    MPI_Finalize();
    return 0;
}
