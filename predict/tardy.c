/* The offline `tardy` command. Subcommands:
 *   tardy report PROFILE.json [--top N]   print the summary of a profile again
 *   tardy help [options]                  usage, or the TARDY_* options
 *   tardy version */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "profile_json.h"
#include "summary.h"

static const char usage[] =
    "usage: tardy COMMAND [ARGS]\n"
    "commands:\n"
    "  report PROFILE.json [--top N]   print the summary of a tardy profile\n"
    "  help [options]                  this text, or the TARDY_* run-time options\n"
    "  version                         print the version\n"
    "To profile a program: tardy-run -- mpiexec -n 4 ./app args\n";

static int cmd_report(int argc, char **argv)
{
    const char *path = NULL;
    int top = 10;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--top") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 100000) {
                fprintf(stderr, "tardy report: --top needs a positive number, not '%s'\n",
                        argv[i]);
                return 2;
            }
            top = (int)v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "tardy report: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (path) {
            fprintf(stderr, "tardy report: one profile at a time ('%s' and '%s')\n", path,
                    argv[i]);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "tardy report: which profile? usage: tardy report PROFILE.json\n");
        return 2;
    }
    struct profile p;
    char err[1024];
    profile_init(&p);
    if (profile_read(&p, path, err, sizeof err) < 0) {
        fprintf(stderr, "tardy report: %s\n", err);
        profile_free(&p);
        return 1;
    }
    struct strbuf out;
    sb_init(&out);
    summary_write(&p, top, &out);
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    sb_free(&out);
    profile_free(&p);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "report"))
        return cmd_report(argc - 2, argv + 2);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("tardy %s\n", TARDY_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        if (argc > 2 && !strcmp(argv[2], "options")) {
            struct strbuf out;
            sb_init(&out);
            cfg_help(&out);
            printf("Run-time options (environment variables):\n%s", out.data ? out.data : "");
            sb_free(&out);
            return 0;
        }
        fputs(usage, stdout);
        return 0;
    }
    fprintf(stderr, "tardy: unknown command '%s'\n%s", cmd, usage);
    return 2;
}
