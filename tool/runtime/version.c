/* The library's version, for programs that link libtardy directly. */
#include "tardy.h"

__attribute__((visibility("default"))) const char *tardy_version(void)
{
    return TARDY_VERSION;
}
