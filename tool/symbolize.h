/* Symbolization of return addresses into "function file:line" frames, with the DWARF line
 * tables read through elfutils libdw. Runs at finalize on every rank, so each rank resolves
 * its own load addresses (ASLR, PIE, shared libraries) before ranks are merged. */
#ifndef TARDY_SYMBOLIZE_H
#define TARDY_SYMBOLIZE_H

#include <stdint.h>

#include "strbuf.h"

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
