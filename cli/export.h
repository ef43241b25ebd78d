/* `tardy export --hatchet PROFILE.json [-o FILE]`, and the runs of `tardy export-extrap`
 * made fit for Extra-P (export.c). */
#ifndef TARDY_CLI_EXPORT_H
#define TARDY_CLI_EXPORT_H

/* argv: the command's arguments after "export"; returns the exit status. */
int cmd_export(int argc, char **argv);

struct profile;
/* Runs of one store (store_load: one parameter set, a text parameter at one value in all)
 * made fit for Extra-P's text format, which holds numbers: each text parameter is removed
 * from runs[0..n), a warning line naming it and its value (written as 0 in every point, it
 * merged runs of mode=fast and mode=slow). For `tardy export-extrap` before extrap_write. */
void export_extrap_numbers(struct profile *runs, int n);

#endif
