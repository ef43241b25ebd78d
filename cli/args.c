/* Argument and option reading shared by the subcommands of the offline command. */
#include "args.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool/base/base.h"

const char *cli_option(int argc, char **argv, int *i, const char *name, int *bad)
{
    if (strcmp(argv[*i], name))
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "tardy: %s needs a value\n", name);
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
