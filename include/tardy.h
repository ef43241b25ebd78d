/* tardy — MPI performance tool. Public interface of libtardy.
 * Programs need nothing from this header to be profiled: preloading or linking libtardy is
 * enough. It gives the version, and MPI_Pcontrol levels the tool understands. */
#ifndef TARDY_H
#define TARDY_H

#define TARDY_PCONTROL_OFF 0 /* MPI_Pcontrol(0): stop collecting */
#define TARDY_PCONTROL_ON 1  /* MPI_Pcontrol(1): collect again */

/* The version of the loaded tardy library, e.g. "0.1.0". */
const char *tardy_version(void);

#endif
