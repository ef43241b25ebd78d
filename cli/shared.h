/* What the subcommands of `tardy` share (shared.c): options and printing. */
#ifndef TARDY_CLI_SHARED_H
#define TARDY_CLI_SHARED_H

#include "tool/base/base.h"

/* The value of --top (1..100000) into *top; -1 with a message naming cmd and the bad text. */
int parse_top(const char *cmd, const char *text, int *top);

/* An argument that is not a known option of cmd: the one profile it reads, into *path.
 * Returns 0, or -1 with a message when arg is an unknown option or a second profile. */
int take_profile(const char *cmd, const char *arg, const char **path);

/* Write text to stdout and free it. */
void print_text(struct strbuf *text);

#endif
