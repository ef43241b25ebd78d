/* The hand-written entry points: MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort and
 * MPI_Pcontrol, in C and Fortran, and MPI_Session_init in C and `use mpi_f08`. They start and
 * finish the runtime around the library's own calls. */
#include <mpi.h>
#include <stddef.h>

#include "tool/base/base.h"
#include "mpit/own/own.h"
#include "tool/runtime/runtime.h"

/* MPICH's Fortran MPI_INIT calls the C MPI_Init: the Fortran wrapper leaves its caller's
 * address here so that MPI_Init is attributed to the Fortran program, not to the binding. */
static void *fortran_caller;

static void *caller_or_fortran(void *ra)
{
    return fortran_caller ? fortran_caller : ra;
}

#pragma GCC visibility push(default)

int MPI_Init(int *argc, char ***argv)
{
    rt_prepare(TARDY_FN_MPI_Init, caller_or_fortran(__builtin_return_address(0)));
    double t0 = clk_now();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        rt_start(TARDY_FN_MPI_Init, MPI_THREAD_SINGLE,
                 caller_or_fortran(__builtin_return_address(0)), t0, clk_now());
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    rt_prepare(TARDY_FN_MPI_Init_thread, caller_or_fortran(__builtin_return_address(0)));
    double t0 = clk_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        rt_start(TARDY_FN_MPI_Init_thread, *provided,
                 caller_or_fortran(__builtin_return_address(0)), t0, clk_now());
    return rc;
}

int MPI_Finalize(void)
{
    rt_finish(__builtin_return_address(0));
    return PMPI_Finalize();
}

/* MPI_Abort is not in mpit/mpi.spec (nothing to count): this rank's partial profile is
 * written first. */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
    rt_abort(errorcode, __builtin_return_address(0));
    return PMPI_Abort(comm, errorcode);
}

#if MPI_VERSION >= 4
int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    rt_session();
    return PMPI_Session_init(info, errhandler, session);
}
#endif

int MPI_Pcontrol(const int level, ...)
{
    rt_pcontrol(level);
    return MPI_SUCCESS;
}

/* Fortran (`use mpi`, mpif.h): the library's Fortran bindings do not call the C entry
 * points above, so they are wrapped too. The library's pmpi_x_ are weak references: an MPI
 * built without Fortran has none, and then no Fortran program calls these either. */
void pmpi_init_(MPI_Fint *ierr) __attribute__((weak));
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
    __attribute__((weak));
void pmpi_finalize_(MPI_Fint *ierr) __attribute__((weak));
void pmpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) __attribute__((weak));
void mpi_init_(MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);
void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr);
void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr);

void mpi_init_(MPI_Fint *ierr)
{
    fortran_caller = __builtin_return_address(0);
    rt_prepare(TARDY_FN_MPI_Init, fortran_caller);
    double t0 = clk_now();
    pmpi_init_(ierr);
    fortran_caller = NULL;
    if (*ierr == MPI_SUCCESS)
        rt_start(TARDY_FN_MPI_Init, MPI_THREAD_SINGLE, __builtin_return_address(0), t0,
                 clk_now());
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    fortran_caller = __builtin_return_address(0);
    rt_prepare(TARDY_FN_MPI_Init_thread, fortran_caller);
    double t0 = clk_now();
    pmpi_init_thread_(required, provided, ierr);
    fortran_caller = NULL;
    if (*ierr == MPI_SUCCESS)
        rt_start(TARDY_FN_MPI_Init_thread, *provided, __builtin_return_address(0), t0,
                 clk_now());
}

void mpi_finalize_(MPI_Fint *ierr)
{
    rt_finish(__builtin_return_address(0));
    pmpi_finalize_(ierr);
}

/* Open MPI's binding calls PMPI_Abort; MPICH's calls MPI_Abort, which then finds the partial
 * profile written. */
void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    rt_abort(*errorcode, __builtin_return_address(0));
    pmpi_abort_(comm, errorcode, ierr);
}

void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr)
{
    rt_pcontrol(*level);
    *ierr = MPI_SUCCESS;
}

/* `use mpi_f08`: MPICH's and Open MPI's bindings call PMPI_Init, PMPI_Finalize and (MPICH's)
 * PMPI_Abort directly. ierror is optional there (NULL when absent). */
void mpi_init_f08_(MPI_Fint *ierr);
void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr);
void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_f08_(MPI_Fint *ierr);
void mpi_pcontrol_f08_(MPI_Fint *level, MPI_Fint *ierr);
void mpi_session_init_f08_(MPI_Fint *info, MPI_Fint *errhandler, MPI_Fint *session,
                           MPI_Fint *ierr);

void mpi_init_f08_(MPI_Fint *ierr)
{
    static void (*next)(MPI_Fint *);
    if (!next)
        next = (void (*)(MPI_Fint *))f08_next("mpi_init_f08_");
    void *ra = __builtin_return_address(0);
    rt_prepare(TARDY_FN_MPI_Init, ra);
    double t0 = clk_now();
    MPI_Fint rc = MPI_SUCCESS;
    next(&rc);
    if (ierr)
        *ierr = rc;
    if (rc == MPI_SUCCESS)
        rt_start(TARDY_FN_MPI_Init, MPI_THREAD_SINGLE, ra, t0, clk_now());
}

void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    static void (*next)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
    if (!next)
        next = (void (*)(MPI_Fint *, MPI_Fint *, MPI_Fint *))f08_next("mpi_init_thread_f08_");
    void *ra = __builtin_return_address(0);
    rt_prepare(TARDY_FN_MPI_Init_thread, ra);
    double t0 = clk_now();
    MPI_Fint rc = MPI_SUCCESS;
    next(required, provided, &rc);
    if (ierr)
        *ierr = rc;
    if (rc == MPI_SUCCESS)
        rt_start(TARDY_FN_MPI_Init_thread, *provided, ra, t0, clk_now());
}

void mpi_finalize_f08_(MPI_Fint *ierr)
{
    static void (*next)(MPI_Fint *);
    if (!next)
        next = (void (*)(MPI_Fint *))f08_next("mpi_finalize_f08_");
    rt_finish(__builtin_return_address(0));
    next(ierr);
}

/* comm: TYPE(MPI_Comm), one integer member, passed by reference. */
void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    static void (*next)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
    if (!next)
        next = (void (*)(MPI_Fint *, MPI_Fint *, MPI_Fint *))f08_next("mpi_abort_f08_");
    rt_abort(*errorcode, __builtin_return_address(0));
    next(comm, errorcode, ierr);
}

void mpi_pcontrol_f08_(MPI_Fint *level, MPI_Fint *ierr)
{
    rt_pcontrol(*level);
    if (ierr)
        *ierr = MPI_SUCCESS;
}

/* MPICH's `use mpi` binding calls the C MPI_Session_init above; its mpi_f08 binding calls
 * PMPI_Session_init directly. info, errhandler, session: handles of one integer member. */
void mpi_session_init_f08_(MPI_Fint *info, MPI_Fint *errhandler, MPI_Fint *session,
                           MPI_Fint *ierr)
{
    static void (*next)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
    if (!next)
        next = (void (*)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *))f08_next(
            "mpi_session_init_f08_");
    rt_session();
    next(info, errhandler, session, ierr);
}
