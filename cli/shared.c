/* What the subcommands of `tardy` share: the --top option, the profile argument, reading
 * profiles, the prediction options, printing a text. */
#include "shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict/predict.h"

int parse_top(const char *cmd, const char *text, int *top)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < 1 || v > 100000) {
        fprintf(stderr, "tardy %s: --top needs a positive number, not '%s'\n", cmd, text);
        return -1;
    }
    *top = (int)v;
    return 0;
}

int take_profile(const char *cmd, const char *arg, const char **path)
{
    if (arg[0] == '-' && arg[1])
        fprintf(stderr, "tardy %s: unknown option '%s'\n", cmd, arg);
    else if (*path)
        fprintf(stderr, "tardy %s: one profile at a time ('%s' and '%s')\n", cmd, *path, arg);
    else
        *path = arg;
    return *path == arg ? 0 : -1;
}

void print_text(struct strbuf *text)
{
    sb_printable(text);
    fwrite(text->data ? text->data : "", 1, text->len, stdout);
    sb_free(text);
}

int read_profiles(const char *cmd, const char *const *paths, int n, struct profile *p)
{
    char err[1024];
    for (int k = 0; k < n; k++)
        profile_init(&p[k]);
    for (int k = 0; k < n; k++)
        if (profile_read(&p[k], paths[k], err, sizeof err) < 0) {
            fprintf(stderr, "tardy %s: %s\n", cmd, err);
            for (int j = 0; j < n; j++)
                profile_free(&p[j]);
            return 1;
        }
    return 0;
}

const char *cli_option(int argc, char **argv, int *i, const char *name, int *bad)
{
    if (strcmp(argv[*i], name))
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "tardy: %s needs a value\n", name);
        *bad = 1;
        return NULL;
    }
    if (!strncmp(argv[*i + 1], "--", 2)) { /* "--extrap --at p=64": --at taken for the file */
        fprintf(stderr, "tardy: %s needs a value, not the option '%s'\n", name, argv[*i + 1]);
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

void cli_load_options(void)
{
    struct strbuf warn;
    sb_init(&warn);
    cfg_load(environ, &warn);
    for (char *line = warn.data, *end; line && *line; line = end + 1) {
        end = line + strcspn(line, "\n");
        fprintf(stderr, "tardy: %.*s\n", (int)(end - line), line);
        if (!*end)
            break;
    }
    sb_free(&warn);
}

struct engine_opts cli_engine_opts(void)
{
    cli_load_options();
    return (struct engine_opts){.policy = "default", .budget = (long)cfg.lua_budget * 1000000L,
                                .mem_cap = (size_t)cfg.lua_memory << 20};
}

int cli_engine_option(int argc, char **argv, int *i, struct engine_opts *o, int *bad)
{
    const char *v;
    if ((v = cli_option(argc, argv, i, "--at", bad)))
        o->targets = v;
    else if ((v = cli_option(argc, argv, i, "--lua", bad)))
        o->user_script = v;
    else if ((v = cli_option(argc, argv, i, "--policy", bad)))
        o->policy = v;
    return v != NULL;
}

void cli_warn_line(const char *message, void *arg)
{
    (void)arg;
    fprintf(stderr, "tardy: %s\n", message);
}

int store_runs(const char *dir, const char *program, struct profile **runs, char *err,
               size_t errlen)
{
    int n = store_load(dir, NULL, program, NULL, runs, cli_warn_line, NULL, err, errlen);
    if (n != 0)
        return n;
    if (program)
        snprintf(err, errlen, "no run of %s in %s", program, dir);
    else
        snprintf(err, errlen, "%s holds no tardy profiles (runs with TARDY_STORE=%s)", dir, dir);
    store_free(*runs, n);
    *runs = NULL;
    return -1;
}

int cli_store_runs(const char *cmd, const char *dir, const char *program, struct profile **runs)
{
    char err[4096];
    int n = store_runs(dir, program, runs, err, sizeof err);
    if (n < 0)
        fprintf(stderr, "tardy %s: %s\n", cmd, err);
    return n;
}
