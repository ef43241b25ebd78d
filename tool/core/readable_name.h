/* Function names as their programmers wrote them (readable_name.c), for symbolize.c:
 * internal to tool/core. */
#ifndef TARDY_CORE_READABLE_NAME_H
#define TARDY_CORE_READABLE_NAME_H

#include <elfutils/libdwfl.h>

#include "tool/base/base.h"

/* Append the readable name of symbol, the function of mod holding addr: a C++ name
 * demangled without its parameters ("Ring::pass"), a Fortran procedure by its source name
 * ("physics::step", the main program's name rather than MAIN__), anything else unchanged. */
void sym_readable_name(Dwfl_Module *mod, Dwarf_Addr addr, const char *symbol,
                       struct strbuf *out);

#endif
