/* Rank 0's Lua steps: at init the check of the scripts and the user's tardy.on_init hook, at
 * finalize the prediction and the run store. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool/base/base.h"
#include "lua/engine.h"
#include "predict/predict.h"
#include "tool/profile/profile.h"

static void options(struct engine_opts *o)
{
    memset(o, 0, sizeof *o);
    o->user_script = cfg.lua;
    o->policy = cfg.policy;
    o->targets = cfg.predict;
    o->budget = (long)cfg.lua_budget * 1000000L;
    o->mem_cap = (size_t)cfg.lua_memory << 20;
}

/* The scripts failed their check at init (and said so), and the first line of why: no second
 * warning at finalize. */
static struct {
    int broken;
    char why[512];
} check;

int fc_wanted(void)
{
    return *cfg.predict != '\0';
}

/* The consequence first: err may end in a traceback. */
static void failed_check(const char *consequence, const char *err)
{
    tardy_warn("Lua (%s): %s", consequence, err);
    check.broken = 1;
    snprintf(check.why, sizeof check.why, "%.*s", (int)strcspn(err, "\n"), err);
}

static void warn_line(const char *message, void *arg)
{
    (void)arg;
    tardy_warn("run store: %s", message);
}

static void quiet_line(const char *message, void *arg)
{
    (void)message, (void)arg;
}

/* Run the hook of e for this job; its settings or NULL (after one warning if it failed). */
static char *init_hook(struct engine *e, int (*describe)(struct profile *, char *, size_t))
{
    struct profile job, *runs = NULL;
    char *settings = NULL, err[4096];
    int n = 0;
    profile_init(&job);
    if (describe(&job, err, sizeof err) < 0) {
        tardy_warn("tardy.on_init is not run: %s", err);
        goto out;
    }
    /* Files the store skips are named once: at finalize when predictions read it again. */
    if (*cfg.store) {
        n = store_load(cfg.store, &job, NULL, NULL, &runs,
                       fc_wanted() ? quiet_line : warn_line, NULL, err, sizeof err);
        n = n < 0 ? 0 : n;
    }
    if (engine_init_hook(e, &job, runs, n, &settings, err, sizeof err) < 0)
        tardy_warn("Lua (tardy.on_init failed, no control variables set by it): %s", err);
out:
    store_free(runs, n);
    profile_free(&job);
    return settings;
}

char *fc_start(int (*describe)(struct profile *job, char *why, size_t len))
{
    if (!fc_wanted() && !*cfg.lua)
        return NULL;
    struct engine_opts o;
    char err[2048], *settings = NULL;
    options(&o);
    struct engine *e = engine_open(&o, err, sizeof err);
    if (!e) {
        failed_check("the scripts are not used: no tardy.on_init, no predictions", err);
        return NULL;
    }
    if (engine_check_policy(e, err, sizeof err) < 0)
        failed_check("no predictions will be made", err);
    if (engine_has_init_hook(e))
        settings = init_hook(e, describe);
    engine_close(e);
    return settings;
}

static void note(struct profile *p, const char *text)
{
    free(p->prediction_note);
    p->prediction_note = strdup(text);
}

void fc_predict(struct profile *p)
{
    if (!fc_wanted())
        return;
    if (check.broken) {
        char line[600];
        snprintf(line, sizeof line, "no predictions: the Lua scripts failed their check (%s)",
                 check.why);
        note(p, line);
        return;
    }
    struct profile *runs = NULL;
    char err[4096], line[600];
    if (lapack_load(err, sizeof err) < 0) { /* the machine's fault, not the policy's */
        tardy_warn("no predictions: %s", err);
        snprintf(line, sizeof line, "no predictions: %.500s", err);
        note(p, line);
        return;
    }
    int n = 0;
    if (*cfg.store) {
        n = store_load(cfg.store, p, NULL, NULL, &runs, warn_line, NULL, err, sizeof err);
        if (n < 0) {
            tardy_warn("%s; predicting from this run alone", err);
            n = 0;
        }
    }
    /* The current run goes last; the array holds shallow copies (the store frees its own). */
    struct profile *all = calloc((size_t)n + 1, sizeof *all);
    if (!all) {
        store_free(runs, n);
        return;
    }
    memcpy(all, runs, (size_t)n * sizeof *all);
    all[n] = *p;
    struct engine_opts o;
    options(&o);
    struct profile out;
    profile_init(&out);
    if (engine_predict(&o, all, n + 1, 1, &out, err, sizeof err) < 0) {
        /* a mistyped target is the setting's fault, not the policy's */
        int target = !strncmp(err, "target '", 8);
        tardy_warn("%s: %s", target ? "TARDY_PREDICT" : "Lua", err);
        snprintf(line, sizeof line, target ? "no predictions: TARDY_PREDICT: %.*s"
                                           : "no predictions: the Lua policy failed (%.*s)",
                 (int)strcspn(err, "\n"), err);
        note(p, line);
    } else {
        p->predictions = out.predictions;
        p->npredictions = out.npredictions;
        p->prediction_note = out.prediction_note;
        out.predictions = NULL;
        out.npredictions = 0;
        out.prediction_note = NULL;
    }
    profile_free(&out);
    free(all);
    store_free(runs, n);
}

void fc_store(struct profile *p)
{
    char err[1024];
    if (!*cfg.store)
        return;
    if (mkdir(cfg.store, 0777) != 0 && errno != EEXIST) {
        tardy_warn("cannot create the run store %s: %s", cfg.store, strerror(errno));
        return;
    }
    char *keep = p->path ? strdup(p->path) : NULL;
    if (profile_write(p, cfg.store, err, sizeof err) < 0)
        tardy_warn("run store: %s", err);
    if (keep) {
        free(p->path);
        p->path = keep;
    }
}
