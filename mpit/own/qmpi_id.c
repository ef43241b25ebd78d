/* tardy's QMPI tool id: 0 until MPICH activates tardy as a QMPI tool (mpit/wrappers/qmpi.c),
 * then where own_X goes. */
#include "own.h"

int qm_tool;

int qm_active(void)
{
    return qm_tool != 0;
}
