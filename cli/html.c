/* `tardy html PROFILE.json [-o FILE]`, `tardy html A.json B.json [-o FILE]`,
 * `tardy html --store DIR [--program NAME] [--at TARGETS] [-o FILE]` and
 * `tardy html --extrap FILE [--at TARGETS] [-o FILE]`: one self-contained HTML page
 * (tool/profile/html.c writes it) that opens from disk. */
#include "html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"
#include "tool/base/base.h"
#include "tool/profile/profile.h"

static const char html_usage[] =
    "usage: tardy html PROFILE.json [-o FILE]\n"
    "       tardy html A.json B.json [-o FILE]\n"
    "       tardy html --store DIR [--program NAME] [--at TARGETS] [--policy NAME] [--lua FILE]\n"
    "                  [-o FILE]\n"
    "       tardy html --extrap FILE [--at TARGETS] [--policy NAME] [--lua FILE] [-o FILE]\n"
    "Writes one self-contained HTML page (scripts, styles and data inlined; it opens from disk\n"
    "with no network) of a run: the run at a glance, MPI time by call path, the spread over\n"
    "ranks, wait states and sortable tables; of two runs: what changed from A to B (tardy\n"
    "diff); or of the runs in a run store, or the values of an Extra-P file (its formats as\n"
    "tardy predict --extrap reads them): each metric over the parameters with the chosen\n"
    "model, its interval and the targets (default: 4x the largest value of the first\n"
    "parameter the runs vary), and the models' errors.\n"
    "  --program NAME  the store's runs of the executable NAME (default: the program with the\n"
    "                  most runs)\n"
    "  -o FILE   where to write (default: PROFILE.html beside PROFILE.json; B-diff.html\n"
    "            beside B.json; DIR.html; FILE.html, and -o for a pipe)\n";

/* Write page to path (replacing an older page) and say so. */
static int write_page(const char *path, const char *page)
{
    char err[1024];
    if (html_write(path, page, 0, err, sizeof err) < 0) {
        fprintf(stderr, "tardy html: %s\n", err);
        return 1;
    }
    fprintf(stderr, "tardy html: wrote %s (%.1f KiB)\n", path, (double)strlen(page) / 1024);
    return 0;
}

static int run_page(const char *profile_path, const char *out)
{
    struct profile p;
    if (read_profiles("html", &profile_path, 1, &p))
        return 1;
    char *page = profile_to_html(&p), *path = out ? strdup(out) : html_path_of(profile_path);
    int rc = page && path ? write_page(path, page) : 1;
    if (!page || !path)
        fprintf(stderr, "tardy html: out of memory\n");
    free(page);
    free(path);
    profile_free(&p);
    return rc;
}

/* The page of what changed from profile a to profile b (tardy diff's document). */
static int diff_page(const char *const path[2], const char *out)
{
    struct profile p[2];
    if (read_profiles("html", path, 2, p))
        return 1;
    int rc = 0;
    struct profile_diff d;
    char *json = NULL;
    if (profile_diff(&p[0], &p[1], &d) == 0) {
        json = diff_to_json(&d);
        profile_diff_free(&d);
    }
    struct strbuf page, name;
    sb_init(&page);
    sb_init(&name);
    if (json) {
        const char *program = p[1].program ? p[1].program : "?", *base = strrchr(program, '/');
        char title[512];
        snprintf(title, sizeof title, "tardy: %s, what changed", base ? base + 1 : program);
        html_page(&page, "diff", title, json);
        size_t n = strlen(path[1]);
        n -= n > 5 && !strcmp(path[1] + n - 5, ".json") ? 5 : 0;
        sb_printf(&name, "%.*s-diff.html", (int)n, path[1]);
    }
    if (!json || page.failed || name.failed) {
        fprintf(stderr, "tardy html: out of memory\n");
        rc = 1;
    }
    if (!rc)
        rc = write_page(out ? out : name.data, page.data);
    sb_free(&page);
    sb_free(&name);
    free(json);
    profile_free(&p[0]);
    profile_free(&p[1]);
    return rc;
}

/* The page of the store at source, or (extrap) of the Extra-P file at source. */
static int store_page(const char *source, int extrap, const char *program,
                      const struct engine_opts *o, const char *out)
{
    char err[4096];
    char *json = extrap ? extrap_report_json(source, o, err, sizeof err)
                        : store_report_json(source, program, o, err, sizeof err);
    if (!json) {
        fprintf(stderr, "tardy html: %s\n", err);
        return 1;
    }
    size_t n = strlen(source);
    while (n > 1 && source[n - 1] == '/')
        n--;
    struct strbuf page, path;
    sb_init(&page);
    sb_init(&path);
    sb_printf(&path, "%.*s.html", (int)n, source);
    char title[512];
    snprintf(title, sizeof title, "tardy: the %s %.*s", extrap ? "Extra-P file" : "runs in",
             (int)n, source);
    html_page(&page, "store", title, json);
    int rc = 1;
    if (page.failed || path.failed)
        fprintf(stderr, "tardy html: out of memory\n");
    else
        rc = write_page(out ? out : path.data, page.data);
    sb_free(&page);
    sb_free(&path);
    free(json);
    return rc;
}

int cmd_html(int argc, char **argv)
{
    const char *store = NULL, *extrap = NULL, *program = NULL, *out = NULL;
    const char *profile[2] = {NULL, NULL}, *v;
    int profiles = 0;
    struct engine_opts o = cli_engine_opts(); /* the store's predictions */
    int bad = 0;
    for (int i = 0; i < argc && !bad; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(html_usage, stdout);
            return 0;
        }
        if ((v = cli_option(argc, argv, &i, "--store", &bad)))
            store = v;
        else if ((v = cli_option(argc, argv, &i, "--extrap", &bad)))
            extrap = v;
        else if ((v = cli_option(argc, argv, &i, "--program", &bad)))
            program = v;
        else if ((v = cli_option(argc, argv, &i, "-o", &bad)))
            out = v;
        else if (cli_engine_option(argc, argv, &i, &o, &bad))
            continue;
        else if (bad)
            break;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "tardy html: unknown option '%s'\n", argv[i]);
            bad = 1;
        } else if (profiles == 2) {
            fprintf(stderr, "tardy html: one profile, or two to compare, not a third ('%s')\n",
                    argv[i]);
            bad = 1;
        } else {
            profile[profiles++] = argv[i];
        }
    }
    if (!bad && !!profiles + !!store + !!extrap != 1) {
        fprintf(stderr, "tardy html: %s\n", profiles || store || extrap
                ? "profiles, --store DIR or --extrap FILE: one of them, not both"
                : "which profile, --store DIR or --extrap FILE?");
        bad = 1;
    }
    if (!bad && profiles && (o.targets || o.user_script || strcmp(o.policy, "default"))) {
        fprintf(stderr, "tardy html: --at, --policy and --lua go with --store or --extrap\n");
        bad = 1;
    }
    if (!bad && program && !store) {
        fprintf(stderr, "tardy html: --program goes with --store\n");
        bad = 1;
    }
    if (!bad && extrap && !out && !strncmp(extrap, "/dev/", 5)) {
        fprintf(stderr, "tardy html: where to write the page of %s? (-o FILE)\n", extrap);
        bad = 1;
    }
    if (bad) {
        fputs(html_usage, stderr);
        return 2;
    }
    if (store || extrap)
        return store_page(store ? store : extrap, !store, program, &o, out);
    return profiles == 2 ? diff_page(profile, out) : run_page(profile[0], out);
}
