/* Function names as their programmers wrote them. C++ (and Rust's legacy) symbols go through
 * the GNU demangler of libiberty (cp-demangle.c, the one binutils and GDB use): Debian's
 * libiberty-dev ships it as a static library built -fPIC, so it links into libtardy.so
 * without pulling libstdc++ (__cxa_demangle) into a C library or adding a shared dependency;
 * its callback form allocates nothing. elfutils itself has no demangler. Parameters are left
 * out: a frame already names its file and line, and `Ring::pass` fits a table where
 * `Ring::pass(std::vector<int, std::allocator<int> >&)` does not.
 * Fortran procedures are named from DWARF (the compilation unit's language, the subprogram's
 * source name) and, for module procedures, gfortran's symbol `__MODULE_MOD_NAME`, read as
 * `MODULE::NAME` also without debug information. */
#include "readable_name.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <demangle.h> /* from IBERTY_CFLAGS */
#include <stdlib.h>
#include <string.h>

static void append_piece(const char *piece, size_t len, void *out)
{
    sb_add(out, piece, len);
}

/* Demangle a C++ symbol into out; 0, or -1 (out unchanged) when symbol is not one. */
static int demangled(const char *symbol, struct strbuf *out)
{
    if (strncmp(symbol, "_Z", 2))
        return -1;
    size_t before = out->len;
    if (cplus_demangle_v3_callback(symbol, DMGL_NO_OPTS, append_piece, out))
        return 0;
    out->len = before; /* a failure may come after part of the name was printed */
    if (out->data)
        out->data[before] = '\0';
    return -1;
}

static int fortran_language(Dwarf_Die *cu)
{
    switch (dwarf_srclang(cu)) {
    case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95:
    case DW_LANG_Fortran03: case DW_LANG_Fortran08:
        return 1;
    default:
        return 0;
    }
}

/* The source name of the subprogram around addr in a Fortran compilation unit, or NULL. */
static const char *fortran_source_name(Dwfl_Module *mod, Dwarf_Addr addr)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias), *scopes = NULL;
    if (!cu || !fortran_language(cu))
        return NULL;
    const char *name = NULL;
    int n = dwarf_getscopes(cu, addr - bias, &scopes);
    for (int i = 0; i < n && !name; i++)
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
            name = dwarf_diename(&scopes[i]);
    free(scopes);
    return name;
}

void sym_readable_name(Dwfl_Module *mod, Dwarf_Addr addr, const char *symbol,
                       struct strbuf *out)
{
    if (demangled(symbol, out) == 0)
        return;
    /* gfortran's module procedure: __MODULE_MOD_NAME */
    const char *mod_sep = !strncmp(symbol, "__", 2) ? strstr(symbol + 2, "_MOD_") : NULL;
    const char *source = fortran_source_name(mod, addr);
    if (mod_sep) {
        sb_add(out, symbol + 2, (size_t)(mod_sep - symbol - 2));
        sb_puts(out, "::");
        sb_puts(out, source ? source : mod_sep + 5);
    } else {
        sb_puts(out, source ? source : symbol);
    }
}
