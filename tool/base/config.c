/* The TARDY_* option table and its parser. */
#include "base.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct cfg cfg;

enum opt_type { OPT_BOOL, OPT_INT, OPT_STRING };

struct option {
    const char *name;
    enum opt_type type;
    const char *def;
    long lo, hi;          /* range for OPT_INT */
    size_t offset;        /* field in struct cfg */
    const char *help;
};

#define FIELD(f) offsetof(struct cfg, f)
static const struct option options[] = {
    {"TARDY_ENABLE", OPT_BOOL, "1", 0, 1, FIELD(enable),
     "collect at all (0 leaves the program untouched)"},
    {"TARDY_DEPTH", OPT_INT, "8", 0, 64, FIELD(depth),
     "application frames kept per call path (0: function only)"},
    {"TARDY_MAX_CALLPATHS", OPT_INT, "16384", 64, 1 << 22, FIELD(max_callpaths),
     "distinct call paths kept per process; further ones are merged into one"},
    {"TARDY_MEMORY", OPT_BOOL, "1", 0, 1, FIELD(memory),
     "count memory the MPI library allocates, per MPI call site"},
    {"TARDY_TOP", OPT_INT, "10", 1, 1000, FIELD(top), "rows per table in the summary"},
    {"TARDY_SUMMARY", OPT_STRING, "stderr", 0, 0, FIELD(summary),
     "where rank 0 prints the summary: stderr, stdout, none, or a file name"},
    {"TARDY_PROFILE", OPT_STRING, ".", 0, 0, FIELD(profile),
     "directory for the JSON profile (a new unique file), or none"},
    {"TARDY_HTML", OPT_BOOL, "0", 0, 1, FIELD(html),
     "also write the HTML report (tardy html) next to the JSON profile, .html for .json"},
    {"TARDY_PARAMS", OPT_STRING, "", 0, 0, FIELD(params),
     "run parameters recorded in the profile, e.g. n=2048,steps=100"},
    {"TARDY_STORE", OPT_STRING, "", 0, 0, FIELD(store),
     "run store directory: the profile is added there and earlier runs are read from it"},
    {"TARDY_PREDICT", OPT_STRING, "", 0, 0, FIELD(predict),
     "prediction targets at finalize, e.g. p=1024;p=4096,n=8192"},
    {"TARDY_LUA", OPT_STRING, "", 0, 0, FIELD(lua),
     "your Lua file with model families and policies"},
    {"TARDY_POLICY", OPT_STRING, "default", 0, 0, FIELD(policy),
     "prediction policy: default, scalaextrap, or one your Lua file registers"},
    {"TARDY_LUA_BUDGET", OPT_INT, "2000", 1, 1000000, FIELD(lua_budget),
     "millions of Lua instructions a prediction may take"},
    {"TARDY_LUA_MEMORY", OPT_INT, "512", 8, 65536, FIELD(lua_memory),
     "MiB of memory the Lua state may use"},
    {"TARDY_PAPI", OPT_STRING, "", 0, 0, FIELD(papi),
     "PAPI events (preset or native names, at most 8) counted per interval and call site"},
    {"TARDY_PAPI_MULTIPLEX", OPT_BOOL, "0", 0, 1, FIELD(papi_multiplex),
     "multiplex the PAPI events (more events than counters, scaled estimates)"},
    {"TARDY_MPIT", OPT_BOOL, "1", 0, 1, FIELD(mpit),
     "use the MPI tools interface: control and performance variables, events"},
    {"TARDY_CVARS", OPT_STRING, "", 0, 0, FIELD(cvars),
     "MPI_T control variables written after MPI_Init, e.g. NAME=VALUE,NAME=VALUE"},
    {"TARDY_CVARS_RECORD", OPT_STRING, "*_ALGORITHM,*EAGER*,*RNDV*,*RENDEZVOUS*", 0, 0,
     FIELD(cvars_record), "control variables recorded in the profile (globs, any case)"},
    /* Open MPI 4.1 crashes allocating a handle for its PSM2 variables when PSM2 is not the
     * transport in use. */
    {"TARDY_PVARS", OPT_STRING, "*,!mtl_psm2_*", 0, 0, FIELD(pvars),
     "performance variables read at finalize (globs, any case; !glob excludes)"},
    {"TARDY_PVAR_COUNTERS", OPT_STRING, "", 0, 0, FIELD(pvar_counters),
     "performance variables read at every MPI call, counted per interval and call site like "
     "TARDY_PAPI events (globs; integer ones; they share its 8 columns)"},
    /* On by default since their cost per call and in a halo-exchange code is within a plain
     * profiler's (README "Wait states", make bench rows with targets). TARDY_WAITS=0 leaves
     * the program's communicators uncopied and its sends without timestamps. */
    {"TARDY_WAITS", OPT_BOOL, "1", 0, 1, FIELD(waits),
     "find wait states (who waited for whom) and the code that caused them"},
    {"TARDY_WAITS_SAMPLE", OPT_INT, "1", 1, 1000000, FIELD(waits_sample),
     "measure waits at every Nth collective per communicator (1: all, exact)"},
    {"TARDY_WAITS_HOTSPOT", OPT_INT, "1", 0, 100, FIELD(waits_hotspot),
     "percent of a late rank's time a region needs to count as a root cause"},
    /* Off by default: at collectives on communicators of every world rank it adds a small
     * allreduce now and then and, once a period, ping-pongs up a binomial tree (tens of
     * microseconds per level on shared memory, more when oversubscribed). */
    {"TARDY_WAITS_RESYNC_MS", OPT_INT, "0", 0, 86400000, FIELD(waits_resync_ms),
     "resynchronise the clocks about every N ms, inside collectives on communicators of "
     "every world rank (0: never)"},
    {"TARDY_PARTIAL", OPT_BOOL, "1", 0, 1, FIELD(partial),
     "a rank that dies early (MPI_Abort; SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT; SIGTERM, "
     "SIGINT, SIGXCPU, SIGUSR1) writes its partial profile to TARDY_PROFILE's directory"},
    /* The signal handlers cost nothing per MPI call; a snapshot costs one rank-local write
     * per period (README "When a job dies" has the measurement). */
    {"TARDY_SNAPSHOT", OPT_INT, "0", 0, 86400 * 365, FIELD(snapshot),
     "every N seconds, each rank rewrites its partial profile at its next MPI call, for "
     "deaths no signal announces (SIGKILL, node failure); 0: never"},
    {"TARDY_TEST_CLOCK_SHIFT", OPT_STRING, "", 0, 0, FIELD(test_clock_shift),
     "testing only: rank:seconds[:rate] shifts that rank's clock, drifting at rate s/s"},
};
#define NOPTIONS (sizeof options / sizeof options[0])

static int parse_value(const struct option *o, const char *v, struct strbuf *warn)
{
    char *end;
    void *field = (char *)&cfg + o->offset;
    switch (o->type) {
    case OPT_STRING:
        *(const char **)field = v;
        return 1;
    case OPT_BOOL:
        if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
            !strcasecmp(v, "true")) {
            *(int *)field = 1;
            return 1;
        }
        if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
            !strcasecmp(v, "false")) {
            *(int *)field = 0;
            return 1;
        }
        sb_printf(warn, "%s=%s is not a yes/no value (use 1 or 0); keeping %s\n", o->name, v,
                  o->def);
        return 0;
    case OPT_INT:
        errno = 0;
        long x = strtol(v, &end, 10);
        if (errno || end == v || *end || x < o->lo || x > o->hi) {
            sb_printf(warn, "%s=%s is not an integer in %ld..%ld; keeping %s\n", o->name, v,
                      o->lo, o->hi, o->def);
            return 0;
        }
        *(int *)field = (int)x;
        return 1;
    }
    return 0;
}

/* Levenshtein distance, small strings only (option names). */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63)
        return INT_MAX;
    int row[64];
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static const struct option *find(const char *name, size_t len)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (strlen(options[i].name) == len && !strncmp(options[i].name, name, len))
            return &options[i];
    return NULL;
}

static void unknown(const char *name, size_t len, struct strbuf *warn)
{
    char buf[64];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, name, len);
    buf[len] = '\0';
    const char *best = NULL;
    int bestd = 4;  /* suggest only close names */
    for (size_t i = 0; i < NOPTIONS; i++) {
        int d = distance(buf, options[i].name);
        if (d < bestd) {
            bestd = d;
            best = options[i].name;
        }
    }
    if (best)
        sb_printf(warn, "unknown option %s (did you mean %s?)\n", buf, best);
    else
        sb_printf(warn, "unknown option %s (see `tardy help options`)\n", buf);
}

/* Variables other tardy parts read themselves (launcher, later modules) are not options. */
static int foreign(const char *name, size_t len)
{
    static const char *const others[] = {"TARDY_LIB", "TARDY_PRELOAD_DONE"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (strlen(others[i]) == len && !strncmp(others[i], name, len))
            return 1;
    return 0;
}

int cfg_load(char *const *envp, struct strbuf *warn)
{
    int problems = 0;
    for (size_t i = 0; i < NOPTIONS; i++)
        parse_value(&options[i], options[i].def, warn);
    for (; envp && *envp; envp++) {
        const char *e = *envp;
        if (strncmp(e, "TARDY_", 6))
            continue;
        const char *eq = strchr(e, '=');
        if (!eq)
            continue;
        size_t len = (size_t)(eq - e);
        const struct option *o = find(e, len);
        if (o)
            problems += !parse_value(o, eq + 1, warn);
        else if (!foreign(e, len)) {
            unknown(e, len, warn);
            problems++;
        }
    }
    return problems;
}

void cfg_help(struct strbuf *out)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        sb_printf(out, "  %-20s default %-8s %s\n", options[i].name,
                  *options[i].def ? options[i].def : "\"\"", options[i].help);
}
