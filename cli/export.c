/* `tardy export --hatchet PROFILE.json [-o FILE]`: a profile in a format other tools read,
 * Hatchet's literal graph format (tool/profile/hatchet.c) for Hatchet and Thicket. Exit
 * status 0 when written, 1 when the profile does not read or the file cannot be written, 2
 * for bad arguments. Also the runs of `tardy export-extrap` made fit for Extra-P's text
 * format (its numbers only). */
#include "export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"
#include "predict/predict.h"
#include "tool/profile/profile.h"

/* Remove the parameter key from run r, if it has it. */
static void drop_param(struct profile *r, const char *key)
{
    for (int i = 0; i < r->nparams; i++)
        if (!strcmp(r->params[i].key, key)) {
            free(r->params[i].key);
            free(r->params[i].value);
            memmove(&r->params[i], &r->params[i + 1],
                    (size_t)(r->nparams - i - 1) * sizeof *r->params);
            r->nparams--;
            return;
        }
}

void export_extrap_numbers(struct profile *runs, int n)
{
    char line[4300];
    for (int k = 0; n > 0 && k < runs[0].nparams;) {
        const struct prof_param *q = &runs[0].params[k];
        if (store_param_is_number(q->value)) {
            k++;
            continue;
        }
        snprintf(line, sizeof line, "%s (text: %s=%s in every run written) is left out of the "
                 "file: Extra-P's format holds numbers", q->key, q->key, q->value);
        cli_warn_line(line, NULL);
        for (int i = n - 1; i >= 0; i--) /* runs[0] last: q->key is its own */
            drop_param(&runs[i], q->key);
    }
}

static const char export_usage[] = "usage: tardy export --hatchet PROFILE.json [-o FILE]\n";

static int write_text(const char *text, const char *path)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "tardy export: cannot write %s\n", path);
        return 1;
    }
    int bad = fputs(text, f) < 0 || fputc('\n', f) < 0;
    if (path)
        bad |= fclose(f) != 0;
    if (bad)
        fprintf(stderr, "tardy export: writing %s failed\n", path ? path : "the output");
    return bad;
}

int cmd_export(int argc, char **argv)
{
    const char *profile = NULL, *out = NULL;
    int hatchet = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--hatchet")) {
            hatchet = 1;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (take_profile("export", argv[i], &profile) < 0) {
            fputs(export_usage, stderr);
            return 2;
        }
    }
    if (!hatchet || !profile) {
        fprintf(stderr, "tardy export: %s\n%s", !hatchet ? "which format? (--hatchet)"
                                                         : "which profile?", export_usage);
        return 2;
    }
    struct profile p;
    char err[1024];
    profile_init(&p);
    int rc = 1;
    if (profile_read(&p, profile, err, sizeof err) < 0) {
        fprintf(stderr, "tardy export: %s\n", err);
    } else {
        char *text = hatchet_literal(&p);
        if (!text)
            fprintf(stderr, "tardy export: out of memory\n");
        else
            rc = write_text(text, out);
        free(text);
    }
    profile_free(&p);
    return rc;
}
