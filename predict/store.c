/* Reading the run store. */
#include "predict.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/profile/profile.h"

static const char *base_name(const char *path)
{
    const char *b = strrchr(path ? path : "", '/');
    return b ? b + 1 : path ? path : "";
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Share of a's MPI call sites that b has too; -1 when a has none. */
static double site_overlap(const struct profile *a, const struct profile *b)
{
    size_t total = 0, common = 0;
    for (size_t i = 0; i < a->rows.n; i++) {
        const struct prof_row *r = &a->rows.rows[i];
        if (r->kind != ROW_MPI)
            continue;
        total++;
        common += rowset_find(&b->rows, ROW_MPI, r->a, NULL) != NULL;
    }
    return total ? (double)common / (double)total : -1;
}

/* Is b a run of the program of ref? A ref without call sites (a job at MPI_Init) is matched
 * by the executable's name alone. */
static int same_program(const struct profile *ref, const struct profile *b)
{
    if (strcmp(base_name(ref->program), base_name(b->program)))
        return 0;
    double there = site_overlap(ref, b);
    return there < 0 || (there >= 0.5 && site_overlap(b, ref) >= 0.5);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sorted names of the .json files in dir; NULL when dir cannot be read. */
static char **json_files(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    int cap = 0;
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !has_suffix(e->d_name, ".json"))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **bigger = realloc(names, (size_t)cap * sizeof *names);
            if (!bigger)
                break;
            names = bigger;
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (!names)
        names = calloc(1, sizeof *names);
    qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

int store_load(const char *dir, const struct profile *like, struct profile **runs,
               store_warn_fn warn, void *arg, char *err, size_t errlen)
{
    int nfiles = 0, n = 0;
    char **files = json_files(dir, &nfiles);
    *runs = NULL;
    if (!files) {
        snprintf(err, errlen, "cannot read the run store %s: %s", dir, strerror(errno));
        return -1;
    }
    struct profile *all = calloc((size_t)nfiles + 1, sizeof *all);
    char path[4096], msg[4200];
    for (int i = 0; all && i < nfiles; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        profile_init(&all[n]);
        if (profile_read(&all[n], path, msg, sizeof msg) < 0) {
            char line[4300];
            snprintf(line, sizeof line, "skipping %s", msg);
            warn(line, arg);
            profile_free(&all[n]);
            continue;
        }
        n++;
    }
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    if (!all)
        return 0;
    /* Without a reference run, the program with the most runs is the reference. */
    const struct profile *ref = like;
    int best = 0;
    for (int i = 0; !like && i < n; i++) {
        int k = 0;
        for (int j = 0; j < n; j++)
            k += same_program(&all[i], &all[j]);
        if (k > best) {
            best = k;
            ref = &all[i];
        }
    }
    struct profile *kept = calloc((size_t)n + 1, sizeof *kept);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (kept && ref && same_program(ref, &all[i])) {
            kept[m++] = all[i];
            continue;
        }
        if (ref && !strcmp(base_name(all[i].program), base_name(ref->program)))
            snprintf(msg, sizeof msg, "skipping %s: a run of %s with other MPI call sites "
                     "(changed code or TARDY_DEPTH)", all[i].path, base_name(ref->program));
        else if (ref)
            snprintf(msg, sizeof msg, "skipping %s: a run of %s, not of %s", all[i].path,
                     base_name(all[i].program), base_name(ref->program));
        if (ref)
            warn(msg, arg);
        profile_free(&all[i]);
    }
    free(all);
    *runs = kept;
    return m;
}

void store_free(struct profile *runs, int n)
{
    for (int i = 0; i < n; i++)
        profile_free(&runs[i]);
    free(runs);
}
