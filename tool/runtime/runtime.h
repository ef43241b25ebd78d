/* The tool's life cycle inside one MPI process: start right after MPI_Init, finish right
 * before MPI_Finalize (collect, reduce, write the profile, print the summary). */
#ifndef TARDY_RUNTIME_H
#define TARDY_RUNTIME_H

/* MPI_Init (function fn, called from ra) is about to run: read the options and start call
 * paths and memory tracking, so that MPI_Init's own allocations are charged to it. */
void rt_prepare(unsigned fn, void *ra);

/* MPI is initialised: read the configuration, set up call paths and the tool communicator,
 * and count MPI_Init (function fn, called from ra, from t_enter to t_leave) as the first call.
 * Safe to call twice (the Fortran and C entry points may both see one MPI_Init). */
void rt_start(unsigned fn, int thread_level, void *ra, double t_enter, double t_leave);

/* MPI_Finalize was called from ra: stop collecting and report. Collective over
 * MPI_COMM_WORLD. Safe to call twice. */
void rt_finish(void *ra);

/* MPI_Abort(comm, errorcode) was called from ra: this rank writes its partial profile
 * before the abort goes through. */
void rt_abort(int errorcode, void *ra);

/* MPI_Session_init (MPI 4) was called: tardy starts in MPI_Init, so a program that only makes
 * sessions is not measured; it is told so once, on stderr. */
void rt_session(void);

/* MPI_Pcontrol(level): 0 stops collection, anything else resumes it. */
void rt_pcontrol(int level);

#endif
