/* Return address → "function file:line" through libdwfl on the live process; the function
 * named as its source wrote it (readable_name.c). */
#include "core.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readable_name.h"
#include "tool/base/base.h"

struct symbolizer {
    Dwfl *dwfl;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* Each open is a Dwfl of its own: the names kept between snapshots and a wait-state
 * collection's may be open at once, and closing one must leave the other intact. */
struct symbolizer *sym_open(void)
{
    struct symbolizer *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->dwfl = dwfl_begin(&callbacks);
    if (!s->dwfl || dwfl_linux_proc_report(s->dwfl, getpid()) != 0 ||
        dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
        tardy_warn("cannot read this process's modules for symbols (%s); call paths are shown "
                   "as addresses", dwfl_errmsg(-1));
        if (s->dwfl)
            dwfl_end(s->dwfl);
        free(s);
        return NULL;
    }
    return s;
}

void sym_close(struct symbolizer *s)
{
    if (s) {
        dwfl_end(s->dwfl);
        free(s);
    }
}

static const char *basename_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

const char *sym_function(struct symbolizer *s, uintptr_t pc)
{
    Dwarf_Addr addr = pc ? pc - 1 : 0;
    Dwfl_Module *mod = s ? dwfl_addrmodule(s->dwfl, addr) : NULL;
    return mod ? dwfl_module_addrname(mod, addr) : NULL;
}

int sym_in_c_library(struct symbolizer *s, uintptr_t pc)
{
    Dwarf_Addr addr = pc ? pc - 1 : 0;
    Dwfl_Module *mod = s ? dwfl_addrmodule(s->dwfl, addr) : NULL;
    const char *name = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
                           : NULL;
    const char *base = name ? basename_of(name) : "";
    return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5);
}

void sym_frame(struct symbolizer *s, uintptr_t pc, struct strbuf *out)
{
    /* A return address points after the call; the call itself is one byte earlier. */
    Dwarf_Addr addr = pc ? pc - 1 : 0;
    Dwfl_Module *mod = s ? dwfl_addrmodule(s->dwfl, addr) : NULL;
    if (!mod) {
        sb_printf(out, "?? ??:0");
        return;
    }
    const char *fn = dwfl_module_addrname(mod, addr);
    if (fn)
        sym_readable_name(mod, addr, fn, out);
    else
        sb_puts(out, "??");
    Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file) {
        sb_printf(out, " %s:%d", file, lineno);
        return;
    }
    Dwarf_Addr base;
    const char *modname = dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    sb_printf(out, " %s+0x%llx:0", modname ? basename_of(modname) : "??",
              (unsigned long long)(addr - base));
}
