/* What the subcommands of `tardy` share (shared.c): options, reading profiles, printing. */
#ifndef TARDY_CLI_SHARED_H
#define TARDY_CLI_SHARED_H

#include "lua/engine.h"
#include "tool/base/base.h"
#include "tool/profile/profile.h"

/* The value of --top (1..100000) into *top; -1 with a message naming cmd and the bad text. */
int parse_top(const char *cmd, const char *text, int *top);

/* An argument that is not a known option of cmd: the one profile it reads, into *path.
 * Returns 0, or -1 with a message when arg is an unknown option or a second profile. */
int take_profile(const char *cmd, const char *arg, const char **path);

/* Write text to stdout, its control characters shown as '?' (sb_printable), and free it. */
void print_text(struct strbuf *text);

/* Value of the option name at argv[*i] ("--name VALUE"), advancing *i; NULL if argv[*i] is not
 * name, or (with *bad set and a message printed) when the value is missing or is another
 * option (starts with "--"; a file so named is given as ./--name). */
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

/* The runs of the store at dir (of the executable named program, when not NULL) into *runs:
 * their number, or -1 with the message in err: the store unreadable, holding no profiles, or
 * no run of program in it. */
int store_runs(const char *dir, const char *program, struct profile **runs, char *err,
               size_t errlen);
/* The same, the message on stderr naming cmd. */
int cli_store_runs(const char *cmd, const char *dir, const char *program, struct profile **runs);

/* Read the n profiles at paths into p[0..n-1] (initialised here). Returns 0, or 1 with a
 * message naming cmd and the file, every p then freed. */
int read_profiles(const char *cmd, const char *const *paths, int n, struct profile *p);

#endif
