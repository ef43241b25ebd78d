/* The offline `tardy` command. Subcommands:
 *   tardy report PROFILE.json [--top N]     print the summary of a profile again
 *   tardy predict (--store DIR [--program NAME] | --extrap FILE) --at TARGETS [--lua FILE]
 *                 [--policy NAME] [--json]   (JSON: a "tardy-predictions" document)
 *   tardy export-extrap --store DIR [--program NAME] [-o FILE]
 *   tardy merge FILES|DIR [-o OUT.json] [--top N]   (cli/merge.c)
 *   tardy diff A.json B.json [--top N] [--json]    (cli/diff.c)
 *   tardy export --hatchet PROFILE.json [-o FILE]  (cli/export.c)
 *   tardy html PROFILE.json | A.json B.json | --store DIR [--program NAME] [-o FILE]
 *                                            (cli/html.c)
 *   tardy help [options]                    usage, or the TARDY_* options
 *   tardy version */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared.h"
#include "diff.h"
#include "export.h"
#include "html.h"
#include "json_chunks.h"
#include "merge.h"
#include "tool/base/base.h"
#include "lua/engine.h"
#include "predict/predict.h"
#include "tool/profile/profile.h"

static const char usage[] =
    "usage: tardy COMMAND [ARGS]\n"
    "commands:\n"
    "  report PROFILE.json [--top N]   print the summary of a tardy profile\n"
    "  predict --store DIR [--program NAME] --at TARGETS [--lua FILE] [--policy NAME]\n"
    "          [--json]\n"
    "  predict --extrap FILE --at TARGETS [...]\n"
    "                                  predict metrics at TARGETS (e.g. p=1024;p=4096,n=8192)\n"
    "                                  from the runs in a store or an Extra-P input file\n"
    "  export-extrap --store DIR [--program NAME] [-o FILE]\n"
    "                                  write the store's metrics in Extra-P's text format\n"
    "  merge FILES|DIR [-o OUT.json] [--top N]\n"
    "                                  merge the partial profiles a job left when it died\n"
    "                                  (DIR: its *.partial.json) into one, and summarize it\n"
    "  diff A.json B.json [--top N] [--json]\n"
    "                                  what changed from run A to run B: call sites, compute\n"
    "                                  intervals and wait states by change of time per rank\n"
    "  export --hatchet PROFILE.json [-o FILE]\n"
    "                                  write the profile's call paths in Hatchet's literal\n"
    "                                  format (hatchet.GraphFrame.from_literal, Thicket)\n"
    "  html PROFILE.json [-o FILE]     the HTML report of a run: one page that opens from disk\n"
    "  html A.json B.json [-o FILE]    the HTML page of what changed from run A to run B\n"
    "  html --store DIR [--program NAME] [--at TARGETS] [-o FILE]\n"
    "                                  the HTML report of a run store and its predictions\n"
    "  help [options|predict]          this text, the TARDY_* run-time options, or how to\n"
    "                                  predict (also: tardy predict --help)\n"
    "  version                         print the version\n"
    "To profile a program: tardy-run -- mpiexec -n 4 ./app args\n";

static const char predict_usage[] =
    "usage: tardy predict (--store DIR [--program NAME] | --extrap FILE) --at TARGETS\n"
    "                     [--policy NAME] [--lua FILE] [--json]\n"
    "Predicts the metrics of a program at scales not run yet from the runs in a run store\n"
    "(TARDY_STORE) or an Extra-P input file (repetitions: their median).\n"
    "  --store DIR      the runs of the program with the most runs in DIR\n"
    "  --program NAME   ... of the executable NAME (a store several programs share)\n"
    "  --extrap FILE    Extra-P's text format (PARAMETER, POINTS, REGION, METRIC, DATA), its\n"
    "                   JSON (also the legacy one with ids), JSON Lines or Talpas input\n"
    "  --at TARGETS     where to predict: p=1024;p=4096,n=8192 (a parameter left out keeps\n"
    "                   the value of the latest run)\n"
    "  --policy NAME    default (every interval and call path, each series by the family that\n"
    "                   predicts larger scales best) or scalaextrap (seed 000), or your own\n"
    "  --lua FILE       your families and policies (docs/lua-api.md)\n"
    "  --json           a \"tardy-predictions\" document instead of the table\n"
    "Each prediction has an interval that should hold the actual value 80% of the time\n"
    "(low..high); where the runs cannot support a number (too few scales, noise, a trend\n"
    "that reverses) the note says so instead. TARDY_LUA_BUDGET and TARDY_LUA_MEMORY apply.\n"
    "Exit status: 0 with at least one prediction, 3 when the runs gave none (the note says\n"
    "why: a misspelt parameter, too few scales), 1 when the input, a target or a script\n"
    "fails, 2 for a wrong option.\n";

/* "tardy CMD: writing WHAT failed" on stderr (as tardy export says it), with the reason when
 * errno tells one. */
static void unwritten(const char *cmd, const char *what)
{
    fprintf(stderr, "tardy %s: writing %s failed%s%s\n", cmd, what, errno ? ": " : "",
            errno ? strerror(errno) : "");
}

/* Close f: 0, or -1 when a write to it or the close failed (errno the close's reason, 0 when
 * an earlier write failed). */
static int file_closed(FILE *f)
{
    int failed = ferror(f);
    errno = 0;
    return fclose(f) != 0 || failed ? -1 : 0;
}

/* rc of a command, or 1 when what it printed did not reach stdout (a full disk, a closed
 * pipe: `tardy predict --json > /dev/full` must not exit 0 with nothing written). */
static int stdout_written(const char *cmd, int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    unwritten(cmd, "the standard output");
    return 1;
}

static int cmd_report(int argc, char **argv)
{
    const char *path = NULL;
    int top = 10;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--top") && i + 1 < argc) {
            if (parse_top("report", argv[++i], &top) < 0)
                return 2;
        } else if (take_profile("report", argv[i], &path) < 0) {
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "tardy report: which profile? usage: tardy report PROFILE.json\n");
        return 2;
    }
    struct profile p;
    if (read_profiles("report", &path, 1, &p))
        return 1;
    struct strbuf out;
    sb_init(&out);
    summary_write(&p, top, &out);
    print_text(&out);
    profile_free(&p);
    return 0;
}

static int cmd_predict(int argc, char **argv)
{
    const char *store = NULL, *extrap = NULL, *program = NULL, *v;
    int json = 0;
    struct engine_opts o = cli_engine_opts();
    int bad = 0;
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(predict_usage, stdout);
            return 0;
        }
    for (int i = 0; i < argc && !bad; i++) {
        if ((v = cli_option(argc, argv, &i, "--store", &bad)))
            store = v;
        else if ((v = cli_option(argc, argv, &i, "--program", &bad)))
            program = v;
        else if ((v = cli_option(argc, argv, &i, "--extrap", &bad)))
            extrap = v;
        else if (cli_engine_option(argc, argv, &i, &o, &bad))
            continue;
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!bad) {
            fprintf(stderr, "tardy predict: unknown argument '%s'\n", argv[i]);
            bad = 1;
        }
    }
    int none = o.targets && !o.targets[strspn(o.targets, " \t;")];
    if (bad || !o.targets || none || !!store == !!extrap || (program && !store)) {
        if (!bad)
            fprintf(stderr, "tardy predict: %s\n", program && !store ? "--program goes with --store"
                    : none ? "--at names no target (p=1024;p=4096,n=8192)"
                           : "needs --at and one of --store or --extrap");
        fputs(predict_usage, stderr);
        return 2;
    }
    struct profile *runs = NULL;
    char err[4096];
    int n = store ? cli_store_runs("predict", store, program, &runs)
                  : extrap_read(extrap, &runs, err, sizeof err);
    if (n < 0) {
        if (!store)
            fprintf(stderr, "tardy predict: %s\n", err);
        return 1;
    }
    struct profile out;
    profile_init(&out);
    int rc = 0;
    if (engine_predict(&o, runs, n, 0, &out, err, sizeof err) < 0) {
        fprintf(stderr, "tardy predict: %s\n", err);
        rc = 1;
    } else if (json) {
        struct predictions_source src = {store ? "store" : "extrap", store ? store : extrap,
                                         n ? runs[n - 1].program : "", o.policy, o.targets, n};
        char *text = predictions_to_json(&out, &src);
        printf("%s\n", text ? text : "{}");
        free(text);
    } else {
        struct strbuf text;
        sb_init(&text);
        if (store)
            sb_printf(&text, "%d run%s of %s from %s\n", n, n == 1 ? "" : "s",
                      n ? runs[n - 1].program : "?", store);
        else /* a run per point and repetition */
            sb_printf(&text, "%d run%s from the Extra-P file %s\n", n, n == 1 ? "" : "s", extrap);
        summary_predictions(&out, &text);
        print_text(&text);
    }
    /* a script that runs tardy predict learns from the status that no number came out */
    if (!rc && !out.npredictions)
        rc = 3;
    profile_free(&out);
    store_free(runs, n);
    return rc;
}

static int cmd_export_extrap(int argc, char **argv)
{
    const char *store = NULL, *path = NULL, *program = NULL, *v;
    int bad = 0;
    for (int i = 0; i < argc && !bad; i++) {
        if ((v = cli_option(argc, argv, &i, "--store", &bad)))
            store = v;
        else if ((v = cli_option(argc, argv, &i, "--program", &bad)))
            program = v;
        else if ((v = cli_option(argc, argv, &i, "-o", &bad)))
            path = v;
        else if (!bad) {
            fprintf(stderr, "tardy export-extrap: unknown argument '%s'\n", argv[i]);
            bad = 1;
        }
    }
    if (bad || !store) {
        fprintf(stderr, "%susage: tardy export-extrap --store DIR [--program NAME] [-o FILE]\n",
                bad ? "" : "tardy export-extrap: which run store? ");
        return 2;
    }
    struct profile *runs;
    int n = cli_store_runs("export-extrap", store, program, &runs);
    if (n < 0)
        return 1;
    export_extrap_numbers(runs, n);
    FILE *out = path ? fopen(path, "w") : stdout;
    if (!out) {
        fprintf(stderr, "tardy export-extrap: cannot write %s: %s\n", path, strerror(errno));
        store_free(runs, n);
        return 1;
    }
    int regions = extrap_write(runs, n, out);
    store_free(runs, n);
    if (path && file_closed(out) < 0) {
        unwritten("export-extrap", path);
        return 1;
    }
    fprintf(stderr, "tardy: %d runs, %d regions written\n", n, regions);
    return n > 0 ? 0 : 1;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("tardy %s\n", TARDY_VERSION);
    return 0;
}

/* tardy help [options|predict] */
static int cmd_help(int argc, char **argv)
{
    if (argc > 0 && !strcmp(argv[0], "predict")) {
        fputs(predict_usage, stdout);
        return 0;
    }
    if (argc > 0 && !strcmp(argv[0], "options")) {
        struct strbuf out;
        sb_init(&out);
        cfg_help(&out);
        printf("Run-time options (environment variables):\n%s", out.data ? out.data : "");
        sb_free(&out);
        return 0;
    }
    if (argc > 0) {
        fprintf(stderr, "tardy help: no help on '%s' (tardy help, help options, help "
                "predict)\n", argv[0]);
        return 2;
    }
    fputs(usage, stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } commands[] = {{"report", cmd_report},   {"predict", cmd_predict}, {"merge", cmd_merge},
                    {"diff", cmd_diff},       {"export", cmd_export},   {"html", cmd_html},
                    {"export-extrap", cmd_export_extrap},               {"version", cmd_version},
                    {"--version", cmd_version}, {"help", cmd_help},     {"--help", cmd_help},
                    {"-h", cmd_help}};
    const char *cmd = argv[1];
    json_chunks_use();
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return stdout_written(cmd, commands[i].run(argc - 2, argv + 2));
    fprintf(stderr, "tardy: unknown command '%s'\n%s", cmd, usage);
    return 2;
}
