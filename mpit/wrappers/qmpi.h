/* The QMPI attachment (MPICH built with --enable-qmpi). The library's constructor registers
 * the tool name "tardy"; when MPIR_CVAR_QMPI_TOOL_LIST names it, MPICH calls back during
 * MPI_Init and tardy registers its QMPI functions (generated in wrappers_q.c), which then
 * count every call QMPI reaches, in list order with other QMPI tools. Where QMPI is compiled
 * out (Debian's MPICH, other MPIs) the registration fails quietly and the PMPI entry points
 * count as before. */
#ifndef TARDY_QMPI_H
#define TARDY_QMPI_H

/* Generated: register every QMPI function of tardy with MPICH as tool tool_id. */
void qm_register_functions(int tool_id);

#endif
