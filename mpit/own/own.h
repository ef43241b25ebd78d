/* MPI as tardy itself uses it, below everything else of the tool: its own calls (own_X,
 * generated from mpit/mpi.spec, with the function ids), its QMPI tool id, ranks translated
 * to world ranks, waiting without spinning, and the facts of the Fortran bindings. */
#ifndef TARDY_OWN_H
#define TARDY_OWN_H

#include <mpi.h>
#include <stddef.h>

/* tardy's QMPI tool id once MPICH activated it (tools count from 1; 0: not a QMPI
 * tool): where own_X goes (set by the registration, mpit/wrappers/qmpi.c). */
extern int qm_tool;

/* 1 once MPICH activated tardy as a QMPI tool. */
int qm_active(void);

/* Generated from mpit/mpi.spec: the function ids and names, and own_X. */
#include "fn_table.h"
#include "own_calls.h"

/* ---- peer.c ----
 * Ranks of a communicator translated to MPI_COMM_WORLD ranks, through a small per-thread
 * cache (no table that grows with the communicator size). */
/* Prepare the translation (world group); call once after MPI is initialised. */
void pr_init(void);
void pr_fini(void);

/* World rank of rank r of comm (of its remote group for an inter-communicator);
 * r itself when it cannot be translated. */
int pr_world(MPI_Comm comm, int r);

/* comm is about to be freed: its handle may be reused for another communicator. */
void pr_forget(MPI_Comm comm);

/* ---- yield.c ----
 * Waiting for the tool's own messages and collectives without spinning. MPICH busy-polls
 * inside blocking calls, so on an oversubscribed node a rank waiting for its children in the
 * tree reduction takes the CPU from the ranks still symbolizing their call paths (8 ranks on 2
 * cores: 0.9 s added to MPI_Finalize), and a blocking collective advances only as fast as the
 * scheduler happens to run every rank (8 ranks on 2 cores: MPI_Barrier 39 ms, MPI_Comm_dup
 * 54 ms; nonblocking and yielding 1.6 and 0.8 ms). These poll and give the CPU away between
 * polls. */
/* Complete request r (MPI_Test; between tests sched_yield, or once it has waited 200 us a
 * sleep of an eighth of the time waited, at most 1 ms); returns MPI_Test's error code. */
int yw_wait(MPI_Request *r);

/* MPI_Iprobe until a message matches, yielding or sleeping between polls as yw_wait. */
void yw_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

/* The blocking collectives tardy makes, done as their nonblocking forms and yw_wait: the same
 * arguments, results and return codes as MPI_Barrier, MPI_Bcast, MPI_Allreduce (of a
 * predefined contiguous type) and MPI_Comm_dup. On an intra-communicator of one rank the
 * first three call no MPI at all (yield.c). */
int yw_barrier(MPI_Comm comm);
int yw_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int yw_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm);
int yw_comm_dup(MPI_Comm comm, MPI_Comm *copy);

/* ---- fortran.c ----
 * The Fortran bindings as C sees them: for the generated Fortran entry points and the wait
 * states' Fortran hooks, and finding the library's mpi_f08 functions. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER is a C int");

/* A Fortran array of datatype (request) handles as C handles. Where the handles are the same
 * integers (MPICH) this is a cast; elsewhere the byte counts of the w-variants (of MPI_Startall)
 * are not computed. */
#if defined(MPICH)
#define f2c_types(a) ((const MPI_Datatype *)(a))
#define f2c_requests(a) ((const MPI_Request *)(a))
#else
#define f2c_types(a) ((const MPI_Datatype *)0)
#define f2c_requests(a) ((const MPI_Request *)0)
#endif

/* The Fortran status length, which Open MPI 4.1's C header lacks (its status is ints and a
 * size_t, six INTEGERs). */
#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* The mpi_f08 ignored statuses as a program passes them. MPICH's MPI_F08_STATUS_IGNORE points
 * to its C library's own copy of the object, while a Fortran program passes the copy its
 * executable holds (copy relocation): the object's address as the program resolves it is
 * the one to compare with. Open MPI 4.1's mpi_f08 module binds MPI_STATUS_IGNORE to the same
 * variable as mpif.h. Weak: an MPICH built without Fortran has no such objects (and no
 * Fortran caller either). */
#if defined(MPICH)
#pragma weak MPIR_F08_MPI_STATUS_IGNORE_OBJ
#pragma weak MPIR_F08_MPI_STATUSES_IGNORE_OBJ
#define F08_STATUS_IGNORE ((MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ)
#define F08_STATUSES_IGNORE ((MPI_Fint *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ)
#else
#define F08_STATUS_IGNORE MPI_F_STATUS_IGNORE
#define F08_STATUSES_IGNORE MPI_F_STATUSES_IGNORE
#endif

/* A Fortran choice buffer as the byte counts compare it: MPI_IN_PLACE for the binding's own
 * MPI_IN_PLACE, an object of the Fortran library's (as the program resolves it: the
 * executable's copy, see the statuses above). MPICH: `use mpi` passes its common block
 * member, whose address MPICH's Fortran init leaves in MPIR_F_MPI_IN_PLACE; mpi_f08 passes
 * the choice buffer as a descriptor whose first member is the base address (TS 29113 and
 * gfortran's own), MPIR_F08_MPI_IN_PLACE for in-place. Open MPI 4.1: both pass the address of
 * the common block mpi_fortran_in_place. Weak: an MPI built without Fortran has none of them
 * (and no Fortran caller either). */
#if defined(MPICH)
#pragma weak MPIR_F_MPI_IN_PLACE
#pragma weak MPIR_F08_MPI_IN_PLACE
extern void *MPIR_F_MPI_IN_PLACE;
static inline const void *f_buf(const void *b)
{
    return &MPIR_F_MPI_IN_PLACE && b && b == MPIR_F_MPI_IN_PLACE ? MPI_IN_PLACE : b;
}
static inline const void *f08_buf(const void *desc)
{
    const void *b = desc ? *(const void *const *)desc : NULL;
    return b && b == (const void *)&MPIR_F08_MPI_IN_PLACE ? MPI_IN_PLACE : b;
}
#else
#pragma weak mpi_fortran_in_place_
extern MPI_Fint mpi_fortran_in_place_;
static inline const void *f_buf(const void *b)
{
    return b && b == (const void *)&mpi_fortran_in_place_ ? MPI_IN_PLACE : b;
}
#define f08_buf f_buf
#endif

/* The mpi_f08 entry point of a function with a choice buffer, and its name as a string:
 * MPICH passes the buffer as a TS 29113 descriptor and calls it mpi_x_f08ts_; Open MPI 4.1
 * passes its address and calls it mpi_x_f08_ (like the functions without one, in both).
 * Nothing is counted twice: Open MPI's call PMPI_X (through ompi_x_f) or its pmpi_x_, MPICH's
 * the C MPI_X, which tardy's re-entry guard passes straight to PMPI_X. */
#if defined(OPEN_MPI)
#define F08_CHOICE(x) x##_f08_
#define F08_CHOICE_NAME(x) #x "_f08_"
#else
#define F08_CHOICE(x) x##_f08ts_
#define F08_CHOICE_NAME(x) #x "_f08ts_"
#endif

/* The first index mpi_f08's Waitany, Testany, Waitsome and Testsome return: MPICH 4.0 returns
 * C's 0-based ones there (pmodels/mpich#6270, fixed in 4.1); `use mpi` and Open MPI count
 * from 1. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && MPICH_NUMVERSION < 40100000
#define F08_INDEX_BASE 0
#else
#define F08_INDEX_BASE 1
#endif

/* The MPI library's own mpi_f08 entry point `name` (MPICH exports no pmpi_ names for them). */
void (*f08_next(const char *name))(void);

#endif
