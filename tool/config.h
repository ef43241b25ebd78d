/* Run-time configuration: one table of TARDY_* environment options drives parsing, type
 * checks, "did you mean" suggestions and the help text (`tardy help options`). */
#ifndef TARDY_CONFIG_H
#define TARDY_CONFIG_H

#include "strbuf.h"

struct cfg {
    int enable;          /* TARDY_ENABLE: master switch */
    int depth;           /* TARDY_DEPTH: application frames per call path, 0..64 */
    int max_callpaths;   /* TARDY_MAX_CALLPATHS: distinct call paths kept per process */
    int top;             /* TARDY_TOP: rows per summary table */
    int memory;          /* TARDY_MEMORY: track memory the MPI library allocates */
    const char *summary; /* TARDY_SUMMARY: stderr, stdout, none, or a file name */
    const char *profile; /* TARDY_PROFILE: directory for the JSON profile, or "none" */
    const char *params;  /* TARDY_PARAMS: user parameters "n=2048,steps=100" */
    const char *store;   /* TARDY_STORE: run store directory, or "" */
    const char *predict; /* TARDY_PREDICT: prediction targets "p=1024;p=4096,n=8192" */
    const char *lua;     /* TARDY_LUA: the user's Lua script (families, policies) */
    const char *policy;  /* TARDY_POLICY: prediction policy name */
    int lua_budget;      /* TARDY_LUA_BUDGET: millions of Lua VM instructions */
    int lua_memory;      /* TARDY_LUA_MEMORY: MiB for the Lua state */
    const char *papi;    /* TARDY_PAPI: PAPI events "PAPI_TOT_INS,sde:::LIB::NAME" or "" */
    int papi_multiplex;  /* TARDY_PAPI_MULTIPLEX: multiplex the events */
    int mpit;            /* TARDY_MPIT: use the MPI tools information interface */
    const char *cvars;   /* TARDY_CVARS: control variables written after MPI_Init, N=V,... */
    const char *cvars_record; /* TARDY_CVARS_RECORD: control variables recorded (globs) */
    const char *pvars;   /* TARDY_PVARS: performance variables read at finalize (globs) */
    const char *pvar_counters; /* TARDY_PVAR_COUNTERS: ... read at every MPI call (globs) */
    int waits;           /* TARDY_WAITS: wait states and their root causes */
    int waits_sample;    /* TARDY_WAITS_SAMPLE: exchange at every Nth collective per comm */
    int waits_hotspot;   /* TARDY_WAITS_HOTSPOT: % of a late rank's time to be a hotspot */
    int waits_resync_ms; /* TARDY_WAITS_RESYNC_MS: clock resynchronisation period, 0 none */
    const char *test_clock_shift; /* TARDY_TEST_CLOCK_SHIFT: "rank:seconds[:rate]" (tests) */
};

extern struct cfg cfg;

/* Reset cfg to defaults, then read every TARDY_* variable of envp. Problems (unknown names,
 * bad values) are appended to warn, one line each, and the default is kept.
 * Returns the number of problems. */
int cfg_load(char *const *envp, struct strbuf *warn);

/* Append the option table as help text. */
void cfg_help(struct strbuf *out);

#endif
