/* tool/base: the clock (monotonic on each thread, within a microsecond of CLOCK_MONOTONIC
 * across its re-anchorings, the TSC where it can be used), the duration histogram (bins, bounds, merging), the bounded tables (growth,
 * lookup, the overflow row), the growable string, numbers in decimal notation, the name lists (globs, !exclusions, any
 * case) and the option table (defaults, values, bad values named, unknown names with
 * suggestions, the help text). Expected values are worked out by hand in the comments. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tool/base/base.h"

/* ---- clock ------------------------------------------------------------------------------- */

/* Can clk_now read the TSC here? The kernel's flags for an invariant TSC and its clocksource. */
static int tsc_expected(void)
{
#if defined(__x86_64__)
    char line[8192];
    int flags = 0, source = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5))
            flags = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
    if (f)
        fclose(f);
    f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    source = f && fgets(line, sizeof line, f) && !strcmp(line, "tsc\n");
    if (f)
        fclose(f);
    return flags && source;
#else
    return 0;
#endif
}

/* Readings over seconds' worth of re-anchorings (the lines' spans double from 2 ms): each
 * thread's never go back, and each lies between the CLOCK_MONOTONIC readings around it, within
 * a microsecond (a preemption widens the bracket, it does not break it). */
static void *clock_readings(void *bad)
{
    double last = clk_now(), start = clk_kernel();
    long back = 0, off = 0;
    while (clk_kernel() - start < 0.3) {
        double k1 = clk_kernel(), c = clk_now(), k2 = clk_kernel();
        back += c < last;
        off += c < k1 - 1e-6 || c > k2 + 1e-6;
        last = c;
    }
    ((long *)bad)[0] = back;
    ((long *)bad)[1] = off;
    return NULL;
}

static void monotonic_clock(void)
{
    /* the process's first reading (it decides the source and takes the first pair) */
    double k1 = clk_kernel(), c = clk_now(), k2 = clk_kernel();
    CHECK(c >= k1 && c <= k2);
    /* calibration: CLOCK_MONOTONIC until the TSC's rate is known (milliseconds) */
    for (double start = clk_kernel(); clk_kernel() - start < 0.05;)
        clk_now();
    CHECK_STR(clk_source(), tsc_expected() ? "TSC (fitted to CLOCK_MONOTONIC)" : "CLOCK_MONOTONIC");
    long bad[2][2];
    pthread_t other;
    CHECK(pthread_create(&other, NULL, clock_readings, bad[1]) == 0);
    clock_readings(bad[0]);
    pthread_join(other, NULL);
    for (int i = 0; i < 2; i++) {
        CHECK_INT(bad[i][0], 0);
        CHECK_INT(bad[i][1], 0);
    }
}

/* ---- histogram ---------------------------------------------------------------------------- */

static void histogram(void)
{
    /* bin 0 below 1 ns (and what is not a number), bin b > 0 [2^(b-1), 2^b) ns */
    CHECK_INT(hist_bin(0), 0);
    CHECK_INT(hist_bin(-1), 0);
    CHECK_INT(hist_bin(NAN), 0);
    CHECK_INT(hist_bin(0.5e-9), 0);
    CHECK_INT(hist_bin(1e-9), 1);        /* [1, 2) ns */
    CHECK_INT(hist_bin(1.5e-9), 1);
    CHECK_INT(hist_bin(2.5e-9), 2);      /* [2, 4) ns */
    CHECK_INT(hist_bin(3.9e-9), 2);
    CHECK_INT(hist_bin(4.1e-9), 3);      /* [4, 8) ns */
    CHECK_INT(hist_bin(1e-6), 10);       /* 1000 ns in [512, 1024) */
    CHECK_INT(hist_bin(1.1e-6), 11);     /* 1100 ns in [1024, 2048) */
    CHECK_INT(hist_bin(1e-3), 20);       /* 10^6 ns in [2^19, 2^20) = [524288, 1048576) */
    CHECK_INT(hist_bin(1.0), 30);        /* 10^9 ns in [2^29, 2^30) */
    /* the last bin from 2^38 ns = 274.88 s up */
    CHECK_INT(hist_bin(274), 38);
    CHECK_INT(hist_bin(275), HIST_BINS - 1);
    CHECK_INT(hist_bin(1e9), HIST_BINS - 1);
    CHECK_INT(hist_bin(INFINITY), HIST_BINS - 1);

    CHECK(hist_bin_low(0) == 0);
    CHECK_NEAR(hist_bin_high(0), 1e-9, 1e-15);
    CHECK_NEAR(hist_bin_low(1), 1e-9, 1e-15);
    CHECK_NEAR(hist_bin_high(1), 2e-9, 1e-15);
    CHECK_NEAR(hist_bin_low(11), 1024e-9, 1e-15);
    CHECK_NEAR(hist_bin_high(11), 2048e-9, 1e-15);
    CHECK_NEAR(hist_bin_low(HIST_BINS - 1), 274877906944e-9, 1e-15); /* 2^38 ns */
    CHECK(isinf(hist_bin_high(HIST_BINS - 1)));
    /* the bins tile the line: each one's middle falls into it, its top is the next's bottom */
    for (int b = 1; b < HIST_BINS - 1; b++) {
        CHECK_INT(hist_bin(1.5 * hist_bin_low(b)), b);
        CHECK(hist_bin_high(b) == hist_bin_low(b + 1));
    }

    struct hist a = {0}, b = {0}, empty = {0};
    hist_add(&a, 1e-6);
    hist_add(&b, 1e-6);
    hist_add(&b, 2e-3);                  /* 2*10^6 ns in [2^20, 2^21): bin 21 */
    hist_add(&b, 3e-3);                  /* 3*10^6 ns: bin 22 */
    hist_merge(&a, &b);
    CHECK_INT(a.count[10], 2);
    CHECK_INT(a.count[21], 1);
    CHECK_INT(a.count[22], 1);
    CHECK_NEAR(a.sum[10], 2e-6, 1e-12);
    CHECK_NEAR(a.sum[21], 2e-3, 1e-12);
    uint64_t total = 0;
    for (int i = 0; i < HIST_BINS; i++)
        total += a.count[i];
    CHECK_INT(total, 4);                 /* no other bin touched */
    hist_merge(&a, &empty);              /* merging nothing changes nothing */
    CHECK_INT(a.count[10], 2);
    CHECK_NEAR(a.sum[22], 3e-3, 1e-12);
}

/* ---- tables ------------------------------------------------------------------------------- */

static void tables(void)
{
    struct table t;
    tab_init(&t, sizeof(struct mpi_row), mpi_row_init);
    CHECK(t.n == 0 && t.rows == NULL);

    /* a new row starts initialised, under its two key words */
    struct mpi_row *r = tab_get(&t, 1, 2);
    CHECK(r && r->site == 1 && r->unused == 2 && r->count == 0 && isinf(r->tmin));
    r->count = 12;
    CHECK_INT(((struct mpi_row *)tab_get(&t, 1, 2))->count, 12);
    CHECK_INT(((struct mpi_row *)tab_get(&t, 2, 1))->count, 0); /* (2,1) is another key */
    CHECK_INT(t.n, 2);

    /* a hint is a row number tried first: right, it is the answer; wrong or 0, the key is
     * looked up; numbers are kept while rows are added */
    uint32_t one = tab_find(&t, 1, 2), two = tab_find(&t, 2, 1);
    CHECK(one != 0 && two != 0 && one != two);
    CHECK_INT(tab_find_hinted(&t, 1, 2, one), one);
    CHECK_INT(tab_find_hinted(&t, 1, 2, two), one);
    CHECK_INT(tab_find_hinted(&t, 2, 1, 0), two);
    uint32_t three = tab_find_hinted(&t, 3, 3, one); /* a new key through a wrong hint */
    CHECK(three != one && three != two && ((uint64_t *)tab_row(&t, three - 1))[0] == 3);
    for (uint64_t k = 10; k < 100; k++) /* the rows move as the table grows */
        tab_get(&t, k, 0);
    CHECK_INT(tab_find_hinted(&t, 1, 2, one), one);
    CHECK_INT(((struct mpi_row *)tab_row(&t, one - 1))->count, 12);
    tab_free(&t);
    CHECK(t.n == 0 && t.rows == NULL && t.index == NULL);

    /* growth: every row keeps its value through the index's doublings */
    for (uint64_t k = 0; k < 5000; k++) {
        r = tab_get(&t, k, 7);
        r->count += k;
    }
    CHECK_INT(t.n, 5000);
    int lost = 0;
    for (uint64_t k = 0; k < 5000; k++)
        lost += ((struct mpi_row *)tab_get(&t, k, 7))->count != k;
    CHECK_INT(lost, 0);
    CHECK_INT(t.n, 5000);                /* lookups add nothing */
    CHECK_INT(t.mask + 1, 16384);        /* the index at most half full: 2 * 5001 > 8192 */

    /* Past TAB_MAX_ROWS every new key shares the overflow row: memory stays bounded. The
     * table takes keys 0..65534 (65535 rows), the 101 keys 65535..65635 go to the overflow
     * row, the 65536th row. */
    for (uint64_t k = 5000; k < TAB_MAX_ROWS + 100; k++)
        ((struct mpi_row *)tab_get(&t, k, 7))->count++;
    CHECK_INT(t.n, TAB_MAX_ROWS);
    struct mpi_row *o = tab_get(&t, TAB_OVERFLOW_KEY, TAB_OVERFLOW_KEY);
    CHECK_INT(o->count, 101);
    CHECK(tab_get(&t, TAB_MAX_ROWS - 1, 7) == (void *)o);     /* key 65535: overflow */
    r = tab_get(&t, TAB_MAX_ROWS - 2, 7);                     /* key 65534: its own row */
    CHECK(r != o && r->count == 1 && r->site == TAB_MAX_ROWS - 2);
    r = tab_get(&t, 4321, 7);                                  /* old keys are still found */
    CHECK(r != o && r->count == 4321);
    ((struct mpi_row *)tab_get(&t, 1u << 30, 1))->count++;    /* one more new key */
    CHECK_INT(t.n, TAB_MAX_ROWS);
    CHECK_INT(((struct mpi_row *)tab_get(&t, TAB_OVERFLOW_KEY, TAB_OVERFLOW_KEY))->count, 102);
    tab_free(&t);

    /* the other row kinds */
    struct iv_row iv;
    memset(&iv, 0xff, sizeof iv);
    iv_row_init(&iv);
    CHECK(iv.count == 0 && iv.time == 0 && isinf(iv.tmin) && iv.tmax == 0);
    struct peer_row pr;
    memset(&pr, 0xff, sizeof pr);
    peer_row_init(&pr);
    CHECK(pr.sent_msgs == 0 && pr.recv_bytes == 0);
    CHECK(SITE_FN(SITE(7, 123456)) == 7 && SITE_CP(SITE(7, 123456)) == 123456);
}

/* ---- strbuf ------------------------------------------------------------------------------- */

static void strbuf(void)
{
    struct strbuf sb;
    sb_init(&sb);
    CHECK(sb.data == NULL && sb.len == 0 && sb.cap == 0 && !sb.failed);
    sb_puts(&sb, "abc");
    CHECK_STR(sb.data, "abc");
    CHECK_INT(sb.len, 3);
    CHECK_INT(sb.cap, 256);              /* the first allocation */
    sb_printf(&sb, "%d-%s-%.2f|%5s|%-3d|", 42, "x", 3.14159, "ab", 7);
    CHECK_STR(sb.data, "abc42-x-3.14|   ab|7  |");
    CHECK_INT(sb.len, strlen("abc42-x-3.14|   ab|7  |"));
    sb_add(&sb, "q\0r", 3);              /* bytes, not a string: the NUL counts */
    CHECK_INT(sb.len, 26);
    CHECK(!memcmp(sb.data + 23, "q\0r", 4)); /* and a NUL after them */
    sb_free(&sb);
    CHECK(sb.data == NULL && sb.len == 0 && sb.cap == 0);
    char three[301];
    memset(three, 'y', 300);
    three[300] = '\0';
    sb_puts(&sb, three);
    CHECK_INT(sb.cap, 512);              /* 301 bytes: 256 doubled once */
    sb_free(&sb);

    /* growth: 1000 appends of 10 bytes, and one printf longer than the first allocation */
    for (int i = 0; i < 1000; i++)
        sb_puts(&sb, "0123456789");
    CHECK_INT(sb.len, 10000);
    CHECK_INT(strlen(sb.data), 10000);
    CHECK_INT(sb.cap, 16384);            /* 256 doubled until 10001 bytes fit */
    int bad = 0;
    for (int i = 0; i < 10000; i++)
        bad += sb.data[i] != '0' + i % 10;
    CHECK_INT(bad, 0);
    sb.len = 0;                          /* reuse, as the reduction does */
    char big[1001];
    memset(big, 'z', 1000);
    big[1000] = '\0';
    sb_printf(&sb, "<%s>", big);
    CHECK_INT(sb.len, 1002);
    CHECK(sb.data[0] == '<' && sb.data[1000] == 'z' && sb.data[1001] == '>' && !sb.data[1002]);

    /* a failed buffer ignores further appends */
    sb.failed = 1;
    sb_puts(&sb, "more");
    sb_printf(&sb, "%d", 5);
    sb_add(&sb, "x", 1);
    CHECK_INT(sb.len, 1002);
    sb_free(&sb);
    CHECK(!sb.failed);

    sb_printf(&sb, "%s", "");            /* an empty append still makes a string */
    CHECK(sb.data && sb.len == 0 && sb.data[0] == '\0');
    sb_free(&sb);

    /* for a terminal: ESC, BEL, CR, DEL and the C1 CSI (0xc2 0x9b) shown as '?', newline, tab
     * and other UTF-8 (é, 0xc3 0xa9; 0xc2 0xa0, no C1) kept */
    sb_init(&sb);
    sb_puts(&sb, "a\x1b[31mb\a\r\x7f\xc2\x9b\n\t\xc3\xa9\xc2\xa0");
    sb_printable(&sb);
    CHECK_STR(sb.data, "a?[31mb?????\n\t\xc3\xa9\xc2\xa0");
    sb_free(&sb);
}

/* ---- decimal ------------------------------------------------------------------------------ */

static void decimal(void)
{
    static const struct {
        const char *text;
        int rc;
        double v;
    } cases[] = {
        {"64", DECIMAL_OK, 64},      {"-1.5", DECIMAL_OK, -1.5}, {"+.5e1", DECIMAL_OK, 5},
        {"64.", DECIMAL_OK, 64},     {"2E-3", DECIMAL_OK, 2e-3}, {"1e400", DECIMAL_RANGE, 0},
        {"0x40", DECIMAL_NONE, 0},   {"inf", DECIMAL_NONE, 0},   {"nan", DECIMAL_NONE, 0},
        {".", DECIMAL_NONE, 0},      {"1e", DECIMAL_NONE, 0},    {"1e+", DECIMAL_NONE, 0},
        {"", DECIMAL_NONE, 0},       {" 1", DECIMAL_NONE, 0},    {"1 ", DECIMAL_NONE, 0},
        {"--1", DECIMAL_NONE, 0},    {"1.2.3", DECIMAL_NONE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = 0;
        CHECK_INT(decimal_parse(cases[i].text, strlen(cases[i].text), &v), cases[i].rc);
        if (cases[i].rc == DECIMAL_OK)
            CHECK(v == cases[i].v);
        CHECK_INT(decimal_number(cases[i].text, NULL), cases[i].rc == DECIMAL_OK);
    }
    /* n bytes of a longer line: the number ends at n, digits going on past it are none */
    double v = 0;
    CHECK_INT(decimal_parse("12 34", 2, &v), DECIMAL_OK);
    CHECK(v == 12);
    CHECK_INT(decimal_parse("1234", 2, &v), DECIMAL_NONE);
}

/* ---- globlist ----------------------------------------------------------------------------- */

static void globlist(void)
{
    CHECK_INT(gl_match("*_ALGORITHM", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"), 1);
    CHECK_INT(gl_match("*_ALGORITHM", "MPIR_CVAR_ALGORITHM_X"), 0); /* the whole name */
    CHECK_INT(gl_match("abc", "abcd"), 0);
    CHECK_INT(gl_match("abc", "abc"), 1);
    /* any case, both ways */
    CHECK_INT(gl_match("*_algorithm", "MPIR_CVAR_BCAST_ALGORITHM"), 1);
    CHECK_INT(gl_match("*EAGER*", "btl_vader_eager_limit"), 1);
    /* several patterns: any one */
    CHECK_INT(gl_match("a*,b*", "bx"), 1);
    CHECK_INT(gl_match("a*,b*", "cx"), 0);
    /* ? and classes */
    CHECK_INT(gl_match("rank?", "rank1"), 1);
    CHECK_INT(gl_match("rank?", "rank12"), 0);
    CHECK_INT(gl_match("[ab]x", "Bx"), 1);
    CHECK_INT(gl_match("[ab]x", "cx"), 0);
    /* !pattern excludes, wherever it stands, in any case */
    const char *pvars = "*,!mtl_psm2_*";          /* TARDY_PVARS's default */
    CHECK_INT(gl_match(pvars, "pml_ob1_unexpected_msgq_length"), 1);
    CHECK_INT(gl_match(pvars, "mtl_psm2_rx"), 0);
    CHECK_INT(gl_match(pvars, "MTL_PSM2_RX"), 0);
    CHECK_INT(gl_match("!mtl_psm2_*,*", "mtl_psm2_rx"), 0);
    CHECK_INT(gl_match("!mtl_psm2_*,*", "other"), 1);
    CHECK_INT(gl_match("!foo", "bar"), 0);        /* exclusions alone include nothing */
    CHECK_INT(gl_match("!foo", "foo"), 0);
    /* empty lists and items */
    CHECK_INT(gl_match("", "x"), 0);
    CHECK_INT(gl_match(",,abc,,", "abc"), 1);
    CHECK_INT(gl_match(",,abc,,", ""), 0);
    /* a pattern of 256 characters or more is skipped, the others still count */
    char longp[300 + 8];
    memset(longp, 'a', 300);
    strcpy(longp + 300, ",b*");
    char longname[301];
    memset(longname, 'a', 300);
    longname[300] = '\0';
    CHECK_INT(gl_match(longp, longname), 0);
    CHECK_INT(gl_match(longp, "bee"), 1);
}

/* ---- config ------------------------------------------------------------------------------- */

static int lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* Lines of text that name an option first ("  TARDY_..."). */
static int option_lines(const char *text)
{
    int n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        n += !strncmp(l, "  TARDY_", 8);
    return n;
}

static void config(void)
{
    struct strbuf w;
    sb_init(&w);
    char *none[] = {NULL};
    CHECK_INT(cfg_load(none, &w), 0);
    CHECK(w.len == 0);
    /* every default */
    CHECK(cfg.enable == 1 && cfg.depth == 8 && cfg.max_callpaths == 16384 && cfg.memory == 1);
    CHECK(cfg.top == 10 && cfg.lua_budget == 2000 && cfg.lua_memory == 512);
    CHECK(cfg.papi_multiplex == 0 && cfg.mpit == 1 && cfg.waits == 1);
    CHECK(cfg.waits_sample == 1 && cfg.waits_hotspot == 1 && cfg.waits_resync_ms == 0);
    CHECK_STR(cfg.summary, "stderr");
    CHECK_STR(cfg.profile, ".");
    CHECK_STR(cfg.policy, "default");
    CHECK_STR(cfg.cvars_record, "*_ALGORITHM,*EAGER*,*RNDV*,*RENDEZVOUS*");
    CHECK_STR(cfg.pvars, "*,!mtl_psm2_*");
    CHECK(!*cfg.params && !*cfg.store && !*cfg.predict && !*cfg.lua && !*cfg.papi &&
          !*cfg.cvars && !*cfg.pvar_counters && !*cfg.test_clock_shift);

    /* values: strings as they are (also with '='), integers at both ends of their range,
     * the last of two settings wins; others' variables, foreign TARDY_ ones and names
     * without a value are no problem */
    char *good[] = {"TARDY_DEPTH=3", "TARDY_ENABLE=no", "TARDY_PARAMS=n=5", "PATH=/bin",
                    "TARDY_TOP=1000", "TARDY_LUA_MEMORY=8", "TARDY_SUMMARY=none",
                    "TARDY_WAITS_RESYNC_MS=86400000", "TARDY_DEPTH=64", "TARDY_LIB=/x.so",
                    "TARDY_PRELOAD_DONE=1", "TARDY_WAITS", "XTARDY_FOO=1", NULL};
    CHECK_INT(cfg_load(good, &w), 0);
    CHECK(w.len == 0);
    CHECK(cfg.depth == 64 && cfg.enable == 0 && cfg.top == 1000 && cfg.lua_memory == 8);
    CHECK(cfg.waits_resync_ms == 86400000 && cfg.waits == 1);
    CHECK_STR(cfg.params, "n=5");
    CHECK_STR(cfg.summary, "none");
    CHECK_INT(cfg_load(none, &w), 0);    /* each load starts from the defaults */
    CHECK(cfg.depth == 8 && cfg.enable == 1 && cfg.top == 10);
    CHECK_STR(cfg.summary, "stderr");

    /* yes/no values in their spellings */
    const char *yes[] = {"1", "yes", "on", "true", "TRUE", "Yes"};
    const char *no[] = {"0", "no", "off", "false", "Off", "NO"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "TARDY_HTML=%s", yes[i]);
        snprintf(b, sizeof b, "TARDY_WAITS=%s", no[i]);
        char *env[] = {a, b, NULL};
        CHECK_INT(cfg_load(env, &w), 0);
        CHECK(cfg.html == 1 && cfg.waits == 0);
    }
    CHECK(w.len == 0);

    /* bad values: named once each, the default kept */
    char *bad[] = {"TARDY_DEPTH=abc", "TARDY_TOP=0", "TARDY_DEPHT=4", "TARDY_ZZZZZZZZ=1",
                   "TARDY_WAITS=maybe", "TARDY_LUA_BUDGET=8x", "TARDY_DEPTH=65",
                   "TARDY_MAX_CALLPATHS=99999999999", "TARDY_TOP=", "TARDY_WAITS_HOTSPOT=-1",
                   NULL};
    CHECK_INT(cfg_load(bad, &w), 10);
    CHECK_INT(lines(w.data), 10);
    CHECK(cfg.depth == 8 && cfg.top == 10 && cfg.waits == 1 && cfg.lua_budget == 2000);
    CHECK(cfg.max_callpaths == 16384 && cfg.waits_hotspot == 1);
    CHECK(strstr(w.data, "TARDY_DEPTH=abc is not an integer in 0..64; keeping 8\n"));
    CHECK(strstr(w.data, "TARDY_TOP=0 is not an integer in 1..1000; keeping 10\n"));
    CHECK(strstr(w.data, "TARDY_WAITS=maybe is not a yes/no value (use 1 or 0); keeping 1\n"));
    CHECK(strstr(w.data, "TARDY_LUA_BUDGET=8x is not an integer in 1..1000000; keeping 2000\n"));
    CHECK(strstr(w.data, "TARDY_DEPTH=65 is not an integer in 0..64; keeping 8\n"));
    CHECK(strstr(w.data, "TARDY_MAX_CALLPATHS=99999999999 is not an integer in "
                         "64..4194304; keeping 16384\n"));
    CHECK(strstr(w.data, "TARDY_TOP= is not an integer in 1..1000; keeping 10\n"));
    CHECK(strstr(w.data, "TARDY_WAITS_HOTSPOT=-1 is not an integer in 0..100; keeping 1\n"));
    CHECK(strstr(w.data, "unknown option TARDY_DEPHT (did you mean TARDY_DEPTH?)\n"));
    CHECK(strstr(w.data, "unknown option TARDY_ZZZZZZZZ (see `tardy help options`)\n"));
    sb_free(&w);

    /* suggestions: the closest name within 3 edits */
    char *close[] = {"TARDY_WAIT=1", "TARDY_PAPIMULTIPLEX=1", "TARDY_LAU=x", "TARDY_depth=3",
                     "TARDY_TOPXYZ=1", "TARDY_TOPWXYZ=1", NULL};
    CHECK_INT(cfg_load(close, &w), 6);
    CHECK(strstr(w.data, "unknown option TARDY_TOPXYZ (did you mean TARDY_TOP?)\n"));
    CHECK(strstr(w.data, "unknown option TARDY_TOPWXYZ (see `tardy help options`)\n"));
    CHECK(strstr(w.data, "unknown option TARDY_WAIT (did you mean TARDY_WAITS?)\n"));
    CHECK(strstr(w.data, "unknown option TARDY_PAPIMULTIPLEX (did you mean "
                         "TARDY_PAPI_MULTIPLEX?)\n"));
    CHECK(strstr(w.data, "unknown option TARDY_LAU (did you mean TARDY_LUA?)\n"));
    /* names are case-sensitive: 5 edits from TARDY_DEPTH is too far for a suggestion */
    CHECK(strstr(w.data, "unknown option TARDY_depth (see `tardy help options`)\n"));
    sb_free(&w);

    /* the help text: one line per option, name, default and what it does */
    struct strbuf help;
    sb_init(&help);
    cfg_help(&help);
    /* every line is an option's (26 options when this test was written) */
    CHECK(lines(help.data) >= 26 && lines(help.data) == option_lines(help.data));
    CHECK(strstr(help.data, "  TARDY_DEPTH          default 8        application frames kept "
                            "per call path (0: function only)\n"));
    CHECK(strstr(help.data, "  TARDY_PARAMS         default \"\"       run parameters recorded "
                            "in the profile, e.g. n=2048,steps=100\n"));
    /* every option of the help, set to the default the help gives, is accepted as it is */
    char *env[64] = {0}, *line = help.data;
    int n = 0;
    for (char *nl; n < 63 && (nl = strchr(line, '\n')); line = nl + 1) {
        char name[64], def[128];
        CHECK(sscanf(line, " %63s default %127s", name, def) == 2);
        char *e = malloc(strlen(name) + strlen(def) + 2);
        sprintf(e, "%s=%s", name, strcmp(def, "\"\"") ? def : "");
        env[n++] = e;
    }
    CHECK_INT(n, lines(help.data));
    CHECK_INT(cfg_load(env, &w), 0);
    CHECK(w.len == 0);
    CHECK(cfg.depth == 8 && cfg.top == 10 && cfg.enable == 1 && cfg.waits == 1);
    CHECK_STR(cfg.pvars, "*,!mtl_psm2_*");
    for (int i = 0; i < n; i++)
        free(env[i]);
    sb_free(&help);
    sb_free(&w);
}

int main(void)
{
    monotonic_clock();
    histogram();
    tables();
    strbuf();
    decimal();
    globlist();
    config();
    CHECK_DONE();
}
