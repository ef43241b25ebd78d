/* `tardy export --hatchet PROFILE.json [-o FILE]`: a profile in a format other tools read,
 * Hatchet's literal graph format (tool/profile/hatchet.c) for Hatchet and Thicket. Exit
 * status 0 when written, 1 when the profile does not read or the file cannot be written, 2
 * for bad arguments. */
#include "export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"
#include "tool/profile/profile.h"

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
