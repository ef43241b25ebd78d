/* `tardy diff A.json B.json`: what changed from one run to another (diff.c). */
#ifndef TARDY_CLI_DIFF_H
#define TARDY_CLI_DIFF_H

/* argv: the command's arguments after "diff"; returns the exit status. */
int cmd_diff(int argc, char **argv);

#endif
