/* What the offline command's subcommands share when they read their arguments and options. */
#ifndef TARDY_CLI_ARGS_H
#define TARDY_CLI_ARGS_H

#include "lua/engine.h"

/* Value of the option name at argv[*i] ("--name VALUE"), advancing *i; NULL if argv[*i] is not
 * name, or (with *bad set and a message printed) when the value is missing. */
const char *cli_option(int argc, char **argv, int *i, const char *name, int *bad);

/* Read the TARDY_* options from the environment (the Lua limits apply offline too), printing
 * a warning line for each bad one. */
void cli_load_options(void);

/* The options of the prediction engine as in a job: the TARDY_* options read (the Lua limits
 * TARDY_LUA_BUDGET, TARDY_LUA_MEMORY apply offline too) and the default policy. */
struct engine_opts cli_engine_opts(void);

/* Take argv[*i] into o when it is --at, --lua or --policy with its value: 1 when taken (*i
 * advanced), 0 when not (*bad set when the value is missing). */
int cli_engine_option(int argc, char **argv, int *i, struct engine_opts *o, int *bad);

/* The store's skipped files, one line each on stderr (a store_warn_fn). */
void cli_warn_line(const char *message, void *arg);

#endif
