/* `tardy diff A.json B.json [--top N] [--json]`: the call sites, compute intervals and wait
 * rows of two runs matched by their source frames, with the change of time, count and bytes
 * per rank (tool/profile/diff.c), as text like the summary or as a "tardy-diff" document.
 * Exit status 0 when both profiles read, 1 when one does not, 2 for bad arguments. */
#include "diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"
#include "tool/base/base.h"
#include "tool/profile/profile.h"

static const char diff_usage[] = "usage: tardy diff A.json B.json [--top N] [--json]\n";

static int print_diff(const struct profile *a, const struct profile *b, int top, int json)
{
    struct profile_diff d;
    if (profile_diff(a, b, &d) < 0) {
        fprintf(stderr, "tardy diff: out of memory\n");
        return 1;
    }
    int rc = 0;
    if (json) {
        char *text = diff_to_json(&d);
        if (text)
            printf("%s\n", text);
        else
            rc = 1;
        free(text);
    } else {
        struct strbuf out;
        sb_init(&out);
        diff_write(&d, top, &out);
        print_text(&out);
    }
    profile_diff_free(&d);
    if (rc)
        fprintf(stderr, "tardy diff: out of memory\n");
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    const char *path[2] = {NULL, NULL};
    int top = 10, json = 0, n = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--top") && i + 1 < argc) {
            if (parse_top("diff", argv[++i], &top) < 0)
                return 2;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "tardy diff: unknown option '%s'\n%s", argv[i], diff_usage);
            return 2;
        } else if (n == 2) {
            fprintf(stderr, "tardy diff: two profiles, not a third ('%s')\n%s", argv[i],
                    diff_usage);
            return 2;
        } else {
            path[n++] = argv[i];
        }
    }
    if (n < 2) {
        fprintf(stderr, "tardy diff: which two profiles?\n%s", diff_usage);
        return 2;
    }
    struct profile p[2];
    if (read_profiles("diff", path, 2, p))
        return 1;
    int rc = print_diff(&p[0], &p[1], top, json);
    profile_free(&p[0]);
    profile_free(&p[1]);
    return rc;
}
