/* Support for the Fortran entry points: finding the library's mpi_f08 functions. */
#include "own.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

void (*f08_next(const char *name))(void)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        /* The program called name, so the MPI library has it; failing here means it was
         * loaded in a way dlsym cannot see. Nothing sensible can continue. */
        char msg[256];
        int n = snprintf(msg, sizeof msg, "tardy: cannot find the MPI library's %s\n", name);
        ssize_t w = write(STDERR_FILENO, msg, (size_t)n);
        (void)w;
        _exit(127);
    }
    void (*f)(void);
    *(void **)&f = fn;
    return f;
}
