/* `tardy html`: the HTML report of a run (PROFILE.json), of a run store (--store DIR) or of an
 * Extra-P file (--extrap FILE). */
#ifndef TARDY_CLI_HTML_H
#define TARDY_CLI_HTML_H

#include <stddef.h>

#include "lua/engine.h"

/* argv: the command's arguments after "html"; returns the exit status. */
int cmd_html(int argc, char **argv);

/* html_store.c: the "tardy-store-report" document of the runs in dir (of the executable
 * named program, when not NULL) with the predictions of opts (its targets may be NULL: 4x the
 * largest value of the first parameter the runs vary) and each model's curve over each varied
 * parameter. Malloc'd JSON; NULL with the problem in err. */
char *store_report_json(const char *dir, const char *program, const struct engine_opts *opts,
                        char *err, size_t errlen);

/* The same document of the values of an Extra-P file (each a run, as `tardy predict
 * --extrap` reads them), under the key "extrap" in place of "store". */
char *extrap_report_json(const char *path, const struct engine_opts *opts, char *err,
                         size_t errlen);

#endif
