/* `tardy export --hatchet PROFILE.json [-o FILE]` (export.c). */
#ifndef TARDY_CLI_EXPORT_H
#define TARDY_CLI_EXPORT_H

/* argv: the command's arguments after "export"; returns the exit status. */
int cmd_export(int argc, char **argv);

#endif
