/* Small pieces every other room uses, with no MPI: clock, growing strings, messages to the
 * user, histograms, bounded per-thread tables, the options table, name lists. */
#ifndef TARDY_BASE_H
#define TARDY_BASE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>

/* ---- the clock (clock.c; the reading inline here) ----
 * Monotonic wall clock in seconds. Every timestamp the tool takes comes from clk_now, so a
 * change of clock source is one edit. On x86-64 with an invariant TSC that is also the
 * kernel's clocksource, it is the TSC (rdtsc ≈ 12 ns here against ≈ 29 ns for
 * clock_gettime through the vDSO) converted to seconds by a line fitted to CLOCK_MONOTONIC
 * (clock.c: calibrated over the first milliseconds, re-anchored and slewed at least every
 * second, so it stays within tens of nanoseconds of CLOCK_MONOTONIC, continuous and
 * monotonic); elsewhere CLOCK_MONOTONIC itself. Thread-safe. */
static inline double clk_kernel(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__x86_64__)
/* The thread's copy of the line in use: seconds = sec + (tsc - at) * per_tick for
 * at <= tsc < at + span. A reading outside the span goes to clk_slow, which takes the
 * current line (or makes the next one). A copy stays right over its span after a newer
 * line is made: lines follow each other, the next one starting past the end of this one's
 * span. span 0 (a new thread, not calibrated yet, or CLOCK_MONOTONIC): every reading goes
 * to clk_slow. */
struct clk_line {
    uint64_t at, span;
    double sec, per_tick;
};
extern _Thread_local struct clk_line clk_thread;

/* A reading the thread's line does not cover. */
double clk_slow(uint64_t tsc);

static inline double clk_now(void)
{
    uint64_t tsc = __builtin_ia32_rdtsc();
    /* unsigned: a tsc before at is past the span too */
    uint64_t d = tsc - clk_thread.at;
    if (__builtin_expect(d >= clk_thread.span, 0))
        return clk_slow(tsc);
    return clk_thread.sec + (double)(int64_t)d * clk_thread.per_tick;
}
#else
static inline double clk_now(void)
{
    return clk_kernel();
}
#endif

/* The clock clk_now reads, for the profile. */
const char *clk_source(void);
#define CLK_SOURCE_NAME clk_source()

/* ---- strbuf.c ----
 * A growable text buffer: the JSON writer, the summary and the reduction's packing use it.
 * On allocation failure the buffer turns "failed" and further appends are ignored. */
struct strbuf {
    char *data;
    size_t len, cap;
    int failed;
};

void sb_init(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void sb_add(struct strbuf *sb, const void *bytes, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append the rest of f (a file or a pipe): 0, or -1 when it cannot be read or memory is short. */
int sb_read(struct strbuf *sb, FILE *f);
/* Text for a terminal: every control character (a name's escape sequence would drive it)
 * shown as '?' in place, newlines and tabs kept: the bytes below 0x20, DEL, and U+0080..U+009F. */
void sb_printable(struct strbuf *sb);
/* s without the blanks (spaces, tabs) around it: the end cut off in place, the start skipped. */
char *str_trim(char *s);

/* ---- utf8.c ---- */
/* The length of the UTF-8 character at s (n > 0 bytes left), 0 when s starts none: a stray
 * continuation byte, a sequence cut short, an overlong form, a surrogate, beyond U+10FFFF. */
size_t utf8_char(const unsigned char *s, size_t n);
/* Whether the string s is UTF-8 throughout. */
int utf8_valid(const char *s);

/* ---- decimal.c ----
 * Numbers in decimal notation only (no hexadecimal, inf or nan: no measurement is one). */
#define DECIMAL_OK 0
#define DECIMAL_NONE (-1)  /* not a number in decimal notation */
#define DECIMAL_RANGE (-2) /* beyond a double's range (1.8e308) */
/* The number in the n bytes at s into *v: DECIMAL_OK or why not. */
int decimal_parse(const char *s, size_t n, double *v);
/* Whether the string s is a finite number in decimal notation (into *v unless NULL). */
int decimal_number(const char *s, double *v);

/* ---- fdwrite.c ---- */
/* Write all len bytes of buf to fd (retrying short writes and EINTR): 0, or -1 with errno. */
int fd_write_all(int fd, const void *buf, size_t len);

/* ---- warn.c ----
 * Messages from the tool to the user: one line on stderr, prefixed with the rank. */
/* World rank of this process once MPI is initialised, -1 before. */
extern int tardy_rank;

void tardy_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* tardy_warn the first time *once is reached, nothing after: one warning per problem. The
 * flag is the problem's: a field of the room's state for one warning per process, of an
 * object for one per object (zero-initialised). Thread-safe: of threads that reach it
 * together, one warns. */
void tardy_warn_once(atomic_int *once, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- histogram.c ----
 * Log-scale histogram of durations: bin b > 0 holds [2^(b-1), 2^b) nanoseconds, bin 0 below
 * 1 ns, the last bin everything from 2^(HIST_BINS-2) ns (≈ 5 days) up. Each bin keeps its count
 * and the sum of its values, so bin means survive merging. */
#define HIST_BINS 40

struct hist {
    uint64_t count[HIST_BINS];
    double sum[HIST_BINS];
};

static inline int hist_bin(double seconds)
{
    double ns = seconds * 1e9;
    if (!(ns >= 1.0))
        return 0;
    /* ns in [2^(b-1), 2^b) has the binary exponent b - 1: read it from the double's bits
     * rather than converting and counting leading zeros (this runs twice per MPI call). */
    uint64_t bits;
    __builtin_memcpy(&bits, &ns, sizeof bits);
    int b = (int)(bits >> 52) - 1022; /* the sign is 0: ns >= 1 */
    return b < HIST_BINS ? b : HIST_BINS - 1;
}

static inline void hist_add(struct hist *h, double seconds)
{
    int b = hist_bin(seconds);
    h->count[b]++;
    h->sum[b] += seconds;
}

void hist_merge(struct hist *into, const struct hist *from);
/* Lower bound of bin b in seconds (0 for bin 0). */
double hist_bin_low(int b);
/* Upper bound of bin b in seconds (infinity for the last bin). */
double hist_bin_high(int b);

/* ---- tables.c ----
 * Per-thread tables of bounded size, filled on the hot path without locks:
 *   mpi rows      (MPI function, call path)            → count, time, bytes, durations
 *   interval rows (previous call site → next call site) → count, time, durations
 *   peer rows     world rank of the partner             → messages and bytes each way
 * Keys are pairs of 64-bit words; a table stops growing at TAB_MAX_ROWS and sends further
 * keys to one overflow row, so memory is bounded whatever the run length. */
#define TAB_MAX_ROWS (1u << 16)
#define TAB_OVERFLOW_KEY UINT64_MAX

/* A call site: MPI function id and call path id in one word. */
#define SITE(fn, cp) (((uint64_t)(fn) << 32) | (uint64_t)(cp))
#define SITE_FN(s) ((unsigned)((s) >> 32))
#define SITE_CP(s) ((uint32_t)(s))

struct mpi_row {
    uint64_t site, unused;
    uint64_t count;
    double time, tmin, tmax;
    int64_t sent, recv;
    struct hist calls;
    /* Not statistics: row numbers (tab_find_hinted) of what came with this site's last call,
     * tried first at the next one: the MPI row of the call after it and the interval row
     * between them, the peer rows it sent to and received from. */
    uint32_t next_hint, iv_hint, dest_hint, src_hint;
};

struct iv_row {
    uint64_t from, to;
    uint64_t count;
    double time, tmin, tmax, sumsq;
    struct hist calls;
};

struct peer_row {
    uint64_t rank, unused;
    uint64_t sent_msgs, recv_msgs;
    int64_t sent_bytes, recv_bytes;
};

struct table {
    char *rows;          /* n rows of row_size bytes, each starting with its two key words */
    uint32_t n, cap;
    uint32_t *index;     /* open addressing: row number + 1, 0 = empty */
    uint32_t mask;
    size_t row_size;
    void (*init_row)(void *row);
};

void tab_init(struct table *t, size_t row_size, void (*init_row)(void *row));
void tab_free(struct table *t);
static inline void *tab_row(const struct table *t, uint32_t i)
{
    return t->rows + (size_t)i * t->row_size;
}
static inline uint32_t tab_slot(uint64_t k1, uint64_t k2, uint32_t mask)
{
    uint64_t h = (k1 ^ (k2 * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ (h >> 29)) & mask;
}
/* Rows are numbered from 1 in the order they were made and keep their number (not their
 * address: the rows move when the table grows). */
/* The number of the row for (k1, k2) made, of the overflow row when the table is full, 0 when
 * memory is exhausted: tab_find's path for a key not in the table. */
uint32_t tab_add(struct table *t, uint64_t k1, uint64_t k2);
/* The number of the row for (k1, k2), created if missing; of the overflow row when the table
 * is full; 0 only when memory is exhausted. Inline: every MPI call looks up two or three
 * rows, and a found row is the common case. */
static inline uint32_t tab_find(struct table *t, uint64_t k1, uint64_t k2)
{
    if (t->mask)
        for (uint32_t s = tab_slot(k1, k2, t->mask), i; (i = t->index[s]); s = (s + 1) & t->mask) {
            const uint64_t *key = tab_row(t, i - 1);
            if (key[0] == k1 && key[1] == k2)
                return i;
        }
    return tab_add(t, k1, k2);
}
/* tab_find trying row number hint first (0: none), a row the caller found for this key
 * before: one comparison of keys instead of the hash and the probe when the key repeats; a
 * wrong hint costs that comparison only. */
static inline uint32_t tab_find_hinted(struct table *t, uint64_t k1, uint64_t k2,
                                       uint32_t hint)
{
    if (hint) {
        const uint64_t *key = tab_row(t, hint - 1);
        if (key[0] == k1 && key[1] == k2)
            return hint;
    }
    return tab_find(t, k1, k2);
}
/* The row for (k1, k2) as tab_find finds it; NULL only when memory is exhausted. The pointer
 * is valid until the next row is made. */
static inline void *tab_get(struct table *t, uint64_t k1, uint64_t k2)
{
    uint32_t i = tab_find(t, k1, k2);
    return i ? tab_row(t, i - 1) : NULL;
}

void mpi_row_init(void *row);
void iv_row_init(void *row);
void peer_row_init(void *row);

/* ---- config.c ----
 * Run-time configuration: one table of TARDY_* environment options drives parsing, type
 * checks, "did you mean" suggestions and the help text (`tardy help options`). */
struct cfg {
    int enable;          /* TARDY_ENABLE: master switch */
    int depth;           /* TARDY_DEPTH: application frames per call path, 0..64 */
    int max_callpaths;   /* TARDY_MAX_CALLPATHS: distinct call paths kept per process */
    int top;             /* TARDY_TOP: rows per summary table */
    int memory;          /* TARDY_MEMORY: track memory the MPI library allocates */
    const char *summary; /* TARDY_SUMMARY: stderr, stdout, none, or a file name */
    const char *profile; /* TARDY_PROFILE: directory for the JSON profile, or "none" */
    int html;            /* TARDY_HTML: the HTML report too, next to the JSON profile */
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
    int partial;         /* TARDY_PARTIAL: partial profile on MPI_Abort and signals */
    int snapshot;        /* TARDY_SNAPSHOT: seconds between partial-profile snapshots, 0 off */
    const char *test_clock_shift; /* TARDY_TEST_CLOCK_SHIFT: "rank:seconds[:rate]" (tests) */
};

extern struct cfg cfg;

/* Reset cfg to defaults, then read every TARDY_* variable of envp. Problems (unknown names,
 * bad values) are appended to warn, one line each, and the default is kept.
 * Returns the number of problems. */
int cfg_load(char *const *envp, struct strbuf *warn);

/* Append the option table as help text. */
void cfg_help(struct strbuf *out);

/* ---- globlist.c ----
 * Name lists of the options that select by name (TARDY_PVARS, TARDY_CVARS_RECORD,
 * TARDY_PVAR_COUNTERS): comma-separated glob patterns, case-insensitive, !pattern excludes. */
/* 1 when name matches one of the patterns and none of those written !pattern. */
int gl_match(const char *patterns, const char *name);

#endif
