/* The event core: what every wrapper calls (per-thread state, enter and leave, statistics,
 * intervals, peers), call paths and their symbolization. */
#ifndef TARDY_CORE_H
#define TARDY_CORE_H

#include <limits.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "tool/base/base.h"
#include "tool/counters/counters.h"
#include "mpit/own/own.h"

/* ---- callpath.c ----
 * Call paths: the application's return addresses above an MPI call, captured with libunwind
 * and interned to small ids at run time. Lookups are lock-free; only a new path takes a lock.
 * Paths are symbolized (symbolize.c) only at finalize. */
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

/* The return addresses of the current thread's stack, innermost first, into pc[0..max);
 * returns how many. after_signal: only the code a signal interrupted, from the frame at
 * fault_pc (the program counter in the signal's context; 0 when unknown: the frame libunwind
 * marks as interrupted by a signal) outwards; otherwise the frames above tardy's and the MPI
 * library's own. Not async-signal-safe in general (the
 * unwinder may allocate on first use): called in a forked copy of a dying process, or in
 * normal context. */
int cs_stack(uintptr_t *pc, int max, int after_signal, uintptr_t fault_pc);

/* Number of ids handed out so far (ids are 0 .. cs_count()-1). */
uint32_t cs_count(void);

/* Frames of path id, innermost (the MPI call site) first; returns the frame count. */
int cs_frames(uint32_t id, const uintptr_t **pcs);

/* ---- event.c ----
 * The event core behind every wrapper. A wrapper is thin:
 *     if (!ev_enter(&c, fn, ra)) return PMPI_X(...);     guard, enter time, call path
 *     ...annotations fill c.sent/c.recv/c.dest/c.src...
 *     ev_started(&c); rc = PMPI_X(...); ev_finished(&c);  counters, leave time
 *     ev_leave(&c);                                       statistics, interval, peers
 * State is per thread; a nested MPI call (the library calling itself, or the tool's own
 * traffic) passes straight through. */
#define EV_NO_PEER INT_MIN

struct ev_thread {
    int busy;              /* inside a wrapper: nested MPI calls pass through */
    unsigned epoch;        /* collection epoch of last_site (MPI_Pcontrol restarts it) */
    uint64_t last_site;    /* call site of the previous MPI call, 0 before the first */
    uint32_t last_row;     /* the number of its MPI row (ev_leave's hints), 0 when none */
    double last_leave;
    double compute, mpi;   /* totals of intervals and of MPI time */
    uint64_t mem_site;     /* site charged for allocations while a PMPI call runs, or 0 */
    struct table mpi_rows, intervals, peers;
    struct ctr_thread *ctr;  /* PAPI counters (TARDY_PAPI), NULL when off */
    struct ev_thread *next;
};

struct ev_call {
    struct ev_thread *th;
    unsigned fn;
    uint32_t cp;
    int dest, src, tag, root;   /* dest/src are ranks in comm, EV_NO_PEER when none */
    MPI_Comm comm;
    int64_t sent, recv;
    double t_enter, t_leave;
};

/* Collection is on between MPI_Init and MPI_Finalize, except under MPI_Pcontrol(0); ev_on
 * then says which entry points count: the PMPI ones, or (when MPICH activated tardy as a
 * QMPI tool) the QMPI ones, while PMPI entry points of functions QMPI also reaches stand
 * down. A wrapper passes the layers it counts in. */
#define EV_PMPI 1
#define EV_QMPI 2
#define EV_ANY (EV_PMPI | EV_QMPI)
extern atomic_int ev_on;
extern atomic_uint ev_epoch;
extern _Thread_local struct ev_thread *ev_self;

struct ev_thread *ev_thread_attach(void);
void ev_leave(struct ev_call *c);

/* Work due at the next MPI call (a snapshot of the profile, TARDY_SNAPSHOT): whoever makes it
 * due sets ev_due and clears ev_on, so the guard below takes its unlikely branch at the next
 * call, which runs ev_due_hook once (it turns collection back on). Nothing is added to the
 * path of a call while nothing is due. */
extern atomic_int ev_due;
extern void (*ev_due_hook)(void);
/* Run the due work (one caller wins); returns whether collection is on for layers again. */
int ev_run_due(int layers);

/* Inlined into every wrapper even where the compiler would rather not (it is on the path of
 * every call, and most of its stores die under the wrapper's own). */
static inline __attribute__((always_inline)) int ev_enter(struct ev_call *c, unsigned fn,
                                                          void *ra, int layers)
{
    if (__builtin_expect(!(atomic_load_explicit(&ev_on, memory_order_relaxed) & layers), 0) &&
        (!atomic_load_explicit(&ev_due, memory_order_relaxed) || !ev_run_due(layers)))
        return 0;
    struct ev_thread *t = ev_self;
    if (__builtin_expect(!t, 0) && !(t = ev_thread_attach()))
        return 0;
    if (t->busy)
        return 0;
    t->busy = 1;
    /* the enter time before any work of tardy's (the call path's walk takes microseconds):
     * a wait of a few microseconds is measured from the program's call, not from tardy's */
    c->t_enter = clk_now();
    c->th = t;
    c->fn = fn;
    c->cp = cs_capture(ra, c);
    c->dest = c->src = c->root = EV_NO_PEER;
    c->tag = -1;
    c->comm = MPI_COMM_NULL;
    c->sent = c->recv = 0;
    return 1;
}

static inline void ev_started(struct ev_call *c)
{
    c->th->mem_site = SITE(c->fn, c->cp);
    if (__builtin_expect(c->th->ctr != NULL, 0))
        ctr_enter(c->th->ctr);
}

static inline void ev_finished(struct ev_call *c)
{
    if (__builtin_expect(c->th->ctr != NULL, 0))
        ctr_leave(c->th->ctr);
    c->t_leave = clk_now();
    c->th->mem_site = 0;
}

/* The thread's state, created on first use (NULL when memory is short). */
static inline struct ev_thread *ev_thread(void)
{
    return ev_self ? ev_self : ev_thread_attach();
}

/* Count a call that has no wrapper of the usual shape (MPI_Init): function fn called from
 * ra, from t_enter to t_leave. The next call's interval starts at its end. */
void ev_record(unsigned fn, void *ra, double t_enter, double t_leave);

/* Total compute time (sum of intervals) of all threads of this process. */
double ev_rank_compute(void);

/* Visit every thread's state (at finalize, when no other thread is inside MPI). */
void ev_for_each_thread(void (*fn)(struct ev_thread *t, void *arg), void *arg);

/* ---- symbolize.c ----
 * Symbolization of return addresses into "function file:line" frames, with the DWARF line
 * tables read through elfutils libdw. Runs at finalize on every rank, so each rank resolves
 * its own load addresses (ASLR, PIE, shared libraries) before ranks are merged. */
struct symbolizer;

/* Open the running process for symbolization; NULL (and a warning) when libdw cannot. */
struct symbolizer *sym_open(void);
void sym_close(struct symbolizer *s);

/* Append the frame for return address pc as "function file:line". Unknown parts become
 * "??" and, without line information, "module+0xOFFSET" (the same on every rank).
 * s may be NULL. */
void sym_frame(struct symbolizer *s, uintptr_t pc, struct strbuf *out);

/* The name of the function holding return address pc, from the symbol table only (no DWARF
 * is read), or NULL. Valid until the symbolizer is closed. Not for C library addresses: their
 * symbol table may sit in a large compressed debug file (libc6-dbg). */
const char *sym_function(struct symbolizer *s, uintptr_t pc);

/* Is return address pc in the C library? Decided from the module's file name alone. */
int sym_in_c_library(struct symbolizer *s, uintptr_t pc);

#endif
