/* What the subcommands of `tardy` share: the --top option, printing a text. */
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

void print_text(struct strbuf *text)
{
    fwrite(text->data ? text->data : "", 1, text->len, stdout);
    sb_free(text);
}
