/* `tardy merge`: the partial profiles a dying job left behind, reduced into one (merge.c). */
#ifndef TARDY_CLI_MERGE_H
#define TARDY_CLI_MERGE_H

/* argv: the command's arguments after "merge"; returns the exit status. */
int cmd_merge(int argc, char **argv);

#endif
