/* QMPI registration: the constructor names the tool, MPICH's callback activates it. */
#include "qmpi.h"

#include <mpi.h>

#include "mpit/own/own.h"

#ifdef QMPI_MAX_TOOL_NAME_LENGTH
static void qm_init(int tool_id)
{
    qm_register_functions(tool_id);
    qm_tool = tool_id;
}

/* Runs when the library is loaded (preloaded or linked), before main and MPI_Init. The
 * result is ignored on purpose: MPI_ERR_UNSUPPORTED_OPERATION where QMPI is compiled out, an
 * error where the tool list does not name tardy; both leave the PMPI path in charge. */
__attribute__((constructor)) static void qm_load(void)
{
    QMPI_Register_tool_name("tardy", qm_init);
}
#endif
