/* The reduced profile of one run: what the JSON profile stores, the summary prints and
 * `tardy report` reads back. No MPI here: the offline command links this too.
 *
 * Rows are keyed by strings that mean the same on every rank:
 *   a call site  "MPI_Send@main jacobi.c:88;solve jacobi.c:120"  (function@frames, innermost
 *                first, each frame "function file:line"; no frames at call-path depth 0)
 *   ROW_MPI      a = call site
 *   ROW_INTERVAL a = call site of the MPI call before, b = call site of the call after
 *   ROW_RANK     a = per-rank metric name (compute, mpi, wall, partners, ...); value in time
 *   ROW_PVAR     a = MPI_T performance variable, b = its class; value at finalize in time
 *   ROW_EVENT    a = MPI_T event, b = call site it happened in; occurrences in count
 *   ROW_WAIT     a = wait-state pattern (late_sender, ...), b = call site of the waiting call;
 *                count = waits, time = seconds waited, calls = single waits, late = culprit
 *   ROW_CAUSE    a = "pattern\nwaiting call site", b = the late ranks' region that caused it:
 *                "from site\tto site" (a compute interval), "site" (an MPI call), or
 *                "?" (no hotspot region explains the wait); time = cost in seconds */
#ifndef TARDY_PROFILE_H
#define TARDY_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "tool/base/base.h"

#define PROFILE_SCHEMA "tardy-profile"
#define PROFILE_VERSION 2
#define RANK_HIST_BINS 20
/* Counter columns per row (TARDY_PAPI events), fixed so rows ship as plain bytes. */
#define PROF_COUNTERS 8
/* Per-rank counter totals: bin 0 holds values below 1, bin b > 0 [4^(b-1), 4^b), the last
 * bin everything above. */
#define CTR_RANK_BINS 24

/* One per-rank value reduced over ranks. Ranks without the value do not take part. */
struct red_stat {
    double sum, min, max;
    int32_t min_rank, max_rank;
    uint32_t ranks;
    uint32_t unused;
};

enum row_kind {
    ROW_MPI = 1, ROW_INTERVAL = 2, ROW_RANK = 3, ROW_PVAR = 4, ROW_EVENT = 5, ROW_WAIT = 6,
    ROW_CAUSE = 7
};

/* Plain numbers of a row, shipped between ranks as bytes (all ranks run the same binary). */
struct prof_nums {
    struct red_stat count, time, sent, recv; /* per-rank totals */
    struct red_stat mem_allocs, mem_alloc, mem_freed, mem_live; /* MPI library memory */
    double call_min, call_max, sumsq;        /* single calls / intervals, all ranks */
    struct hist calls;                       /* durations of single calls / intervals */
    struct hist ranks;                       /* per-rank total time, one entry per rank */
    struct red_stat ctr[PROF_COUNTERS];      /* counter totals per rank (profile.counters) */
    uint32_t ctr_ranks[PROF_COUNTERS][CTR_RANK_BINS]; /* their per-rank distribution */
    /* ROW_WAIT: per waiting rank, the seconds its top late rank caused (rank = that late
     * rank); max/max_rank: the late rank that made one rank wait longest at this site */
    struct red_stat late;
};

struct prof_row {
    int kind;
    char *a, *b;
    struct prof_nums n;
};

/* Rows with a hash index on (kind, a, b). */
struct rowset {
    struct prof_row *rows;
    size_t n, cap;
    uint32_t *index;
    size_t mask;
};

struct prof_param {
    char *key, *value;
};

/* One prediction made by a Lua policy at finalize or offline. */
struct prof_prediction {
    char *target;        /* "p=1024,n=8192" */
    char *metric;        /* what is predicted, e.g. "compute time per rank (max)" */
    char *family, *model; /* model family and the fitted formula */
    double value;
    double fit_error;    /* error on the fitted runs (SMAPE, %) */
    double uncertainty;  /* relative uncertainty from cross-validation (%) */
    double low, high;    /* the prediction interval (NAN when the policy gives none) */
    double coverage;     /* its nominal coverage (%), e.g. 80 */
    int extrapolated;    /* the target lies outside the fitted range */
};

/* An MPI_T control variable as rank 0 saw it at finalize. */
struct prof_cvar {
    char *name, *value; /* value as text ("3", "1048576", "ob1") */
    char *written;      /* the value last written (as asked for), or NULL */
    char *origin;       /* who wrote it: "option" (TARDY_CVARS) or "lua" (tardy.on_init) */
    char *before;       /* the value before tardy's first write, or NULL */
};

/* Why one rank's data ends early (a partial profile): the rank, what stopped it and when. */
struct prof_stop {
    int rank;
    char *reason;  /* "abort", "signal", "snapshot" (still running at the last snapshot) */
    int code;      /* MPI_Abort's error code, or the signal number */
    char *signal;  /* "SIGSEGV", ... for reason "signal", else NULL */
    char *where;   /* the call path where it happened ("fn file:line;fn file:line"), or NULL */
    char *time;    /* UTC, "2026-11-25T17:01:02Z" */
    double wall;   /* seconds since MPI_Init */
};

struct profile {
    /* run metadata */
    char *run_id;             /* the same in every file of one job (NULL in old profiles) */
    char *program;            /* path of the executable */
    char **argv;              /* arguments after the program */
    int argc;
    int ranks, hosts, thread_level, depth;
    int ranks_unknown;        /* read from input without a rank count (an Extra-P file without
                               * p): ranks is 1 and p is not one of the run's parameters */
    char *mpi_library, *mpi_version, *tardy_version, *clock, *start_time, *host;
    char *interface;          /* how tardy attached: "PMPI" or "QMPI" */
    struct prof_param *params;
    int nparams;
    char *path;               /* where the profile was written or read, may be NULL */
    /* linear histogram of per-rank compute totals over [lo, hi] */
    double rank_hist_lo, rank_hist_hi;
    uint64_t rank_hist[RANK_HIST_BINS];
    struct rowset rows;
    struct prof_prediction *predictions;
    int npredictions;
    char *prediction_note; /* why there are no (or fewer) predictions, or NULL */
    /* counters: the names of the columns of prof_nums.ctr, and why others are missing */
    int ncounters, counter_multiplex;
    char *counters[PROF_COUNTERS];
    char *counter_note;
    /* MPI_T: the library's inventory (-1: MPI_T not used), recorded control variables */
    int cvars_total, pvars_total, events_total;
    struct prof_cvar *cvars;
    int ncvars;
    char *mpit_note;
    /* partial profiles (docs/profile-schema.md "partial"): the ranks whose data is here and
     * why each stopped; the ranks of 0..ranks-1 not listed are missing. partial == 0: a
     * complete profile, reduced over every rank at MPI_Finalize. */
    int partial;
    struct prof_stop *stops;
    int nstops;
};

void red_stat_one(struct red_stat *s, double v, int rank);
/* Bin of a per-rank counter total in prof_nums.ctr_ranks. */
int ctr_rank_bin(double v);
void red_stat_merge(struct red_stat *into, const struct red_stat *from);
void prof_nums_merge(struct prof_nums *into, const struct prof_nums *from);
void prof_nums_init(struct prof_nums *n);

void rowset_init(struct rowset *rs);
void rowset_free(struct rowset *rs);
/* The row (kind, a, b), created (with copies of a and b, zeroed numbers) if missing.
 * b may be NULL. NULL when memory is exhausted. */
struct prof_row *rowset_get(struct rowset *rs, int kind, const char *a, const char *b);
struct prof_row *rowset_find(const struct rowset *rs, int kind, const char *a, const char *b);

void profile_init(struct profile *p);
void profile_free(struct profile *p);
/* Parse "n=2048,steps=100" into p->params. Returns -1 (and names the bad part in err)
 * when an entry is not key=value. */
int profile_set_params(struct profile *p, const char *text, char *err, size_t errlen);

/* The durations of p's rows (time, late, cost, single calls, histograms' seconds) to the
 * nanosecond, the resolution of tardy's clock: no digits below what was measured. The JSON
 * writer does this first, so a summary printed after writing matches the file's. */
void profile_round_ns(struct profile *p);

/* Add the rows of from into into, as the reduction at finalize merges ranks' rows. Returns
 * 0, or -1 when memory ran out. */
int profile_merge_rows(struct profile *into, const struct profile *from);

/* Append a copy of stop s to p->stops; -1 when memory ran out. */
int profile_add_stop(struct profile *p, const struct prof_stop *s);

/* Sort p->stops by rank. */
void profile_sort_stops(struct profile *p);

/* Append the ranks of 0..p->ranks-1 that have no stop as ranges "2-5,7" (nothing when none
 * is missing). p->stops must be sorted by rank. */
void profile_missing_ranks(const struct profile *p, struct strbuf *out);

/* Value of a ROW_RANK metric (NULL when absent). */
const struct red_stat *profile_rank_metric(const struct profile *p, const char *name);

/* Split a call site string: function name length, and pointer to the frames part. */
size_t site_function_len(const char *site);
const char *site_frames(const char *site);

/* The space between function and "file:line" in a frame of len bytes, or NULL: the last one,
 * as a demangled C++ name may hold spaces ("std::map<int, int>::at") and a file rarely does. */
const char *frame_file_space(const char *frame, size_t len);

/* ---- profile_json.c ----
 * The JSON profile (schema in docs/profile-schema.md): writing at finalize, reading in
 * `tardy report` and the run store. */
/* Write p as a new file in dir, named tardy-PROGRAM-Pp-TIME-PID.json (a suffix is added when
 * the name exists: an existing file is never overwritten). The file is written under a
 * temporary name first and linked into place, so readers never see half a profile.
 * Returns 0 and stores the path in p->path; -1 with a message in err. */
int profile_write(struct profile *p, const char *dir, char *err, size_t errlen);

/* Write p to exactly dir/name, atomically: a temporary file in dir, then rename(2) over any
 * earlier version (for rank-local partial profiles, rewritten at each snapshot). Returns 0
 * and stores the path in p->path; -1 with a message in err. */
int profile_write_as(struct profile *p, const char *dir, const char *name, char *err,
                     size_t errlen);

/* Serialize p into a malloc'd string (caller frees); NULL when memory is short. A partial
 * profile's stops are sorted by rank and its durations rounded (profile_round_ns) first. */
char *profile_to_json(struct profile *p);

/* The same for the HTML report: compact, 7 significant digits, and without the rows' per-call
 * histograms, which the page does not draw (a third of a large profile). Caller frees. */
char *profile_to_page_json(struct profile *p);

/* jansson's text of doc (json_dumps' flags) in memory of malloc, which the caller frees with
 * free() whatever allocator jansson was given (the command's chunks, cli/json_chunks.c);
 * NULL when memory is short. */
struct json_t;
char *json_text(const struct json_t *doc, size_t flags);

/* The predictions of p as a document of their own (`tardy predict --json`, schema
 * "tardy-predictions", docs/lua-api.md): where the runs came from, the policy, the targets,
 * the predictions (as in a profile, with low, high and coverage) and the note. Caller frees;
 * NULL when memory is short. */
struct predictions_source {
    const char *kind;    /* "store" or "extrap" */
    const char *path, *program, *policy, *targets;
    int runs;
};
char *predictions_to_json(const struct profile *p, const struct predictions_source *src);

/* Read a profile file into p (initialised by the caller). Returns 0, or -1 with a message
 * naming the file and the problem in err. */
int profile_read(struct profile *p, const char *path, char *err, size_t errlen);

/* ---- summary.c ----
 * The human-readable summary of a reduced profile: printed by rank 0 at finalize and again by
 * `tardy report`. Section headings start with "== " so they can be grepped; lines fit 100
 * columns. */
/* Append the summary of p, at most top rows per table. */
void summary_write(const struct profile *p, int top, struct strbuf *out);

/* Append the section on a partial profile: the ranks that contributed and why they stopped,
 * the ranks missing (nothing when p is complete). */
void summary_partial(const struct profile *p, int top, struct strbuf *out);

/* Append only the predictions section (nothing when p has none). */
void summary_predictions(const struct profile *p, struct strbuf *out);

/* ---- diff.c ----
 * Two profiles compared: their call sites (ROW_MPI), compute intervals (ROW_INTERVAL) and
 * wait rows (ROW_WAIT) matched by key (kind, a, b), the call sites' text: function and
 * source frames, not the call-path ids of a file. */
struct diff_side {
    int present;               /* the row is in this profile */
    double time, count, bytes; /* per-rank means: sum over ranks / the profile's ranks; bytes
                                * sent + received (0 for intervals and waits) */
};

struct diff_row {
    int kind;
    const char *a, *b;         /* the key, pointing into the profiles compared */
    struct diff_side in_a, in_b;
};

struct profile_diff {
    const struct profile *a, *b; /* the profiles compared (not owned) */
    struct diff_row *rows;       /* MPI rows, then intervals, then waits; each kind with the
                                  * largest absolute change of time first */
    size_t n, cap;
};

/* Compare a (before) with b (after) into d; d refers to both, which must outlive it. Returns
 * 0, or -1 when memory ran out (d is then empty). */
int profile_diff(const struct profile *a, const struct profile *b, struct profile_diff *d);
void profile_diff_free(struct profile_diff *d);

/* Change of a row's time per rank, b - a (seconds). */
double diff_change(const struct diff_row *r);

/* "both", "new" (only in b) or "vanished" (only in a). */
const char *diff_status(const struct diff_row *r);

/* Per-rank mean of a ROW_RANK metric (wall, mpi, compute, wait_time); NAN when absent. */
double diff_rank_mean(const struct profile *p, const char *metric);

/* The diff as a "tardy-diff" document (docs/diff-schema.md); caller frees, NULL when memory
 * is short. */
char *diff_to_json(const struct profile_diff *d);

/* Append the diff as text like the summary: a header, then per kind at most top rows. */
void diff_write(const struct profile_diff *d, int top, struct strbuf *out);

/* ---- hatchet.c ----
 * p in Hatchet's literal graph format (hatchet.GraphFrame.from_literal): the call paths of
 * the MPI call sites as a tree, metrics summed over ranks (docs/profile-schema.md "Hatchet").
 * Caller frees; NULL when memory is short. */
char *hatchet_literal(const struct profile *p);
/* ---- html.c ----
 * The HTML report (tardy html, TARDY_HTML): one self-contained page with its scripts, styles
 * and data inlined; no network request. */
/* Append the page of view ("run": data is a profile; "diff": a tardy-diff document;
 * "store": a tardy-store-report document, cli/html_store.c) with title, around the JSON
 * document data. */
void html_page(struct strbuf *out, const char *view, const char *title, const char *data);

/* The page of the run p (malloc'd, caller frees); NULL when memory is short. */
char *profile_to_html(struct profile *p);

/* json_path with .json replaced by .html (or .html appended); malloc'd, NULL when short. */
char *html_path_of(const char *json_path);

/* Write text to path: a new file when exclusive (an existing file is left alone and is an
 * error), else created or truncated. Returns 0, or -1 with the problem in err (no partial
 * file left). */
int html_write(const char *path, const char *text, int exclusive, char *err, size_t errlen);

/* TARDY_HTML at finalize: p's page next to its JSON profile p->path, same name with .html,
 * never overwriting. Returns 0, or -1 with the problem in err. */
int profile_write_html(struct profile *p, char *err, size_t errlen);

#endif
