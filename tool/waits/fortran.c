/* Wait-state hooks of the Fortran entry points: Fortran requests, statuses (MPI_F_STATUS_SIZE
 * integers each, also for mpi_f08 in MPICH and Open MPI) and indices (1-based, or as the
 * binding counts them) turned into what the C hooks take. Only Fortran callers reach this file; an MPI built without Fortran lacks
 * PMPI_Status_f2c (weak). */
#include "waits.h"

#include <stdlib.h>

#include "mpit/own/own.h"
#include "ws_match.h"

#pragma weak PMPI_Status_f2c

void ws_snap_f(struct ev_call *c, int n, const MPI_Fint reqs[])
{
    (void)c;
    struct ws_rq_ref *snap = ws_snap_room(n);
    for (int i = 0; snap && i < n; i++)
        ws_rq_find(PMPI_Request_f2c(reqs[i]), &snap[i]);
}

void ws_start_f(struct ev_call *c, int n, const MPI_Fint reqs[])
{
    enum { CHUNK = 16 };
    MPI_Request r[CHUNK];
    if (!ws_on || !atomic_load_explicit(&ws_rq_live, memory_order_relaxed))
        return;
    for (int i = 0; i < n; i += CHUNK) {
        int k = n - i < CHUNK ? n - i : CHUNK;
        for (int j = 0; j < k; j++)
            r[j] = PMPI_Request_f2c(reqs[i + j]);
        ws_start(c, k, r);
    }
}

MPI_Fint *ws_fstatuses(MPI_Fint *user, const MPI_Fint *ignore, int n)
{
    if (user != ignore || !ws_on || n <= 0 ||
        !atomic_load_explicit(&ws_rq_live, memory_order_relaxed))
        return user;
    struct ws_thread *w = ws_me();
    if (!w)
        return user;
    if (n > w->fsts_cap) {
        MPI_Fint *s = realloc(w->fsts, (size_t)n * MPI_F_STATUS_SIZE * sizeof *s);
        if (!s)
            return user;
        w->fsts = s;
        w->fsts_cap = n;
    }
    return w->fsts;
}

void ws_done_f(struct ev_call *c, int i, const MPI_Fint *fst, const MPI_Fint *ignore)
{
    MPI_Status st;
    if (fst == ignore) {
        ws_done(c, i, MPI_STATUS_IGNORE);
    } else {
        PMPI_Status_f2c(fst, &st);
        ws_done(c, i, &st);
    }
}

void ws_done_all_f(struct ev_call *c, int n, const MPI_Fint *fsts, const MPI_Fint *ignore)
{
    for (int i = 0; i < n; i++)
        ws_done_f(c, i, fsts == ignore ? ignore : fsts + i * MPI_F_STATUS_SIZE, ignore);
}

void ws_done_some_f(struct ev_call *c, int n, const MPI_Fint idx[], int base,
                    const MPI_Fint *fsts, const MPI_Fint *ignore)
{
    if (n == MPI_UNDEFINED)
        return;
    for (int k = 0; k < n; k++)
        ws_done_f(c, idx[k] - base, fsts == ignore ? ignore : fsts + k * MPI_F_STATUS_SIZE,
                  ignore);
}
