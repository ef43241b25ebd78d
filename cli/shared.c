/* What the subcommands of `tardy` share: the --top option, the profile argument, printing a
 * text. */
#include "shared.h"

#include <stdio.h>
#include <stdlib.h>

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
    fwrite(text->data ? text->data : "", 1, text->len, stdout);
    sb_free(text);
}
