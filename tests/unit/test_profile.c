/* tool/profile: reduced statistics and their merging, the row set, run parameters, call-site
 * strings, the JSON profile (a full round trip that writes back the same text, never
 * overwritten, corrupt and foreign files rejected with the file and the problem named), the
 * summary (headings, 100 columns), the diff of two profiles and the HTML page (names cannot
 * end its elements, the report's name, never overwritten). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tool/profile/profile.h"

/* Read from the top of the tree, where tests/run.py runs the unit tests. */
#define OLD_PROFILE "tests/unit/profile-v1.json"

static void stat_merge(void)
{
    struct red_stat a, b, c, none = {0};
    red_stat_one(&a, 5, 3);
    CHECK(a.sum == 5 && a.min == 5 && a.max == 5 && a.min_rank == 3 && a.ranks == 1);
    red_stat_one(&b, 9, 1);
    red_stat_one(&c, 9, 0);
    red_stat_merge(&a, &b);
    CHECK(a.max == 9 && a.max_rank == 1 && a.min == 5 && a.min_rank == 3 && a.ranks == 2);
    red_stat_merge(&a, &c); /* a tie goes to the lower rank, whatever the order */
    CHECK(a.max_rank == 0 && a.sum == 23 && a.ranks == 3);
    struct red_stat t = a, d, e; /* a: minimum 5 at rank 3 */
    red_stat_one(&d, 5, 1);
    red_stat_merge(&t, &d);  /* the lower rank's equal minimum comes in */
    CHECK(t.min == 5 && t.min_rank == 1 && t.ranks == 4);
    red_stat_one(&e, 5, 2);
    red_stat_merge(&t, &e);  /* a higher rank's does not */
    CHECK(t.min_rank == 1 && t.max_rank == 0);
    red_stat_merge(&a, &none); /* ranks without the value take no part */
    CHECK(a.sum == 23 && a.min == 5 && a.ranks == 3);
    red_stat_merge(&none, &b);
    CHECK(none.sum == 9 && none.min == 9 && none.min_rank == 1 && none.ranks == 1);

    /* per-rank counter totals: bin 0 below 1, bin b > 0 [4^(b-1), 4^b), the last the rest */
    CHECK_INT(ctr_rank_bin(0), 0);
    CHECK_INT(ctr_rank_bin(0.99), 0);
    CHECK_INT(ctr_rank_bin(NAN), 0);
    CHECK_INT(ctr_rank_bin(1), 1);
    CHECK_INT(ctr_rank_bin(3.99), 1);
    CHECK_INT(ctr_rank_bin(4), 2);
    CHECK_INT(ctr_rank_bin(15.9), 2);
    CHECK_INT(ctr_rank_bin(16), 3);
    CHECK_INT(ctr_rank_bin(1000), 5);                 /* [256, 1024) */
    CHECK_INT(ctr_rank_bin(ldexp(1, 42)), 22);        /* 4^21 */
    CHECK_INT(ctr_rank_bin(ldexp(1, 44)), CTR_RANK_BINS - 1); /* 4^22 */
    CHECK_INT(ctr_rank_bin(1e30), CTR_RANK_BINS - 1);

    /* row numbers: statistics, extremes of single calls, histograms and counters add up */
    struct prof_nums x, y;
    prof_nums_init(&x);
    prof_nums_init(&y);
    CHECK(isinf(x.call_min) && x.call_max == 0 && x.count.ranks == 0);
    red_stat_one(&x.time, 2, 0);
    red_stat_one(&y.time, 3, 1);
    x.call_min = 0.5;
    x.call_max = 1;
    y.call_min = 0.25;
    y.call_max = 0.75;
    x.sumsq = 1;
    y.sumsq = 2;
    hist_add(&y.calls, 1e-6);
    red_stat_one(&y.ctr[1], 40, 1);
    y.ctr_ranks[1][ctr_rank_bin(40)] = 1;
    prof_nums_merge(&x, &y);
    CHECK(x.time.sum == 5 && x.time.max_rank == 1 && x.time.ranks == 2);
    CHECK(x.call_min == 0.25 && x.call_max == 1 && x.sumsq == 3);
    CHECK(x.calls.count[10] == 1 && x.ctr[1].sum == 40 && x.ctr_ranks[1][3] == 1);
    CHECK(x.ctr[0].ranks == 0 && x.count.ranks == 0);
}

static void rowset(void)
{
    struct rowset rs;
    rowset_init(&rs);
    CHECK(rowset_find(&rs, ROW_MPI, "x", NULL) == NULL); /* empty: no index yet */
    struct prof_row *r = rowset_get(&rs, ROW_MPI, "MPI_Send@main a.c:1", NULL);
    CHECK(r && r->kind == ROW_MPI && !strcmp(r->a, "MPI_Send@main a.c:1") && r->b == NULL);
    CHECK(isinf(r->n.call_min) && r->n.count.ranks == 0);
    r->n.count.sum = 7;
    /* the same key is the same row; kind and b tell rows apart; NULL and "" are one b */
    CHECK(rowset_get(&rs, ROW_MPI, "MPI_Send@main a.c:1", NULL)->n.count.sum == 7);
    CHECK(rowset_find(&rs, ROW_MPI, "MPI_Send@main a.c:1", "") == r);
    CHECK(rowset_get(&rs, ROW_RANK, "MPI_Send@main a.c:1", NULL) != r);
    CHECK(rowset_get(&rs, ROW_INTERVAL, "a", "b") != rowset_get(&rs, ROW_INTERVAL, "b", "a"));
    CHECK_INT(rs.n, 4);
    CHECK(rowset_find(&rs, ROW_MPI, "MPI_Recv@main a.c:1", NULL) == NULL);
    /* growth: 3000 more rows, each found again with its own numbers */
    char key[64];
    for (int i = 0; i < 3000; i++) {
        snprintf(key, sizeof key, "row %d", i);
        rowset_get(&rs, ROW_RANK, key, i % 2 ? "odd" : NULL)->n.time.sum = i;
    }
    CHECK_INT(rs.n, 3004);
    int lost = 0;
    for (int i = 0; i < 3000; i++) {
        snprintf(key, sizeof key, "row %d", i);
        const struct prof_row *f = rowset_find(&rs, ROW_RANK, key, i % 2 ? "odd" : NULL);
        lost += !f || f->n.time.sum != i;
    }
    CHECK_INT(lost, 0);
    CHECK(rowset_find(&rs, ROW_RANK, "row 1", NULL) == NULL); /* row 1 has b = "odd" */
    rowset_free(&rs);
    CHECK(rs.n == 0 && rs.rows == NULL);
}

static void params_and_sites(void)
{
    struct profile p;
    char err[128];
    profile_init(&p);
    CHECK(p.cvars_total == -1 && p.pvars_total == -1 && p.events_total == -1);
    CHECK_INT(profile_set_params(&p, ",n=2048,,mode=fast,expr=a=b,empty=,", err, sizeof err), 0);
    CHECK_INT(p.nparams, 4);
    CHECK(p.nparams == 4 && !strcmp(p.params[0].key, "n") && !strcmp(p.params[0].value, "2048"));
    CHECK(p.nparams == 4 && !strcmp(p.params[1].key, "mode") &&
          !strcmp(p.params[1].value, "fast"));
    CHECK(p.nparams == 4 && !strcmp(p.params[2].key, "expr") &&
          !strcmp(p.params[2].value, "a=b"));
    CHECK(p.nparams == 4 && !strcmp(p.params[3].key, "empty") && !strcmp(p.params[3].value, ""));
    CHECK_INT(profile_set_params(&p, "k=1,oops,z=2", err, sizeof err), -1);
    CHECK_STR(err, "'oops' is not key=value");
    CHECK_INT(profile_set_params(&p, "=5", err, sizeof err), -1);
    CHECK_STR(err, "'=5' is not key=value");
    profile_free(&p);
    CHECK(p.nparams == 0 && p.params == NULL);

    const char *site = "MPI_Send@main app.c:10;run app.c:40";
    CHECK_INT(site_function_len(site), 8);
    CHECK_STR(site_frames(site), "main app.c:10;run app.c:40");
    CHECK_INT(site_function_len("MPI_Init@"), 8);      /* depth 0: no frames */
    CHECK_STR(site_frames("MPI_Init@"), "");
    CHECK_INT(site_function_len("compute"), 7);        /* not a call site */
    CHECK_STR(site_frames("compute"), "");
    const char *cxx = "std::map<int, int>::at map.h:5";
    CHECK(frame_file_space(cxx, strlen(cxx)) == strstr(cxx, " map.h"));
    CHECK(frame_file_space("??", 2) == NULL);
}

static void fill(struct profile *p)
{
    p->program = strdup("/x/app");
    p->argv = calloc(2, sizeof *p->argv);
    p->argv[0] = strdup("--size=7");
    p->argc = 1;
    p->ranks = 4;
    p->hosts = 1;
    p->depth = 8;
    p->mpi_library = strdup("MPICH 4");
    p->mpi_version = strdup("4.0");
    p->tardy_version = strdup("0.1.0");
    p->start_time = strdup("2026-11-22T00:00:00Z");
    p->clock = strdup("CLOCK_MONOTONIC");
    p->host = strdup("node1");
    char err[64];
    CHECK(profile_set_params(p, "n=2048,mode=fast", err, sizeof err) == 0);
    CHECK(profile_set_params(p, "oops", err, sizeof err) < 0 && strstr(err, "oops"));
    const char *send = "MPI_Send@main app.c:10;run app.c:40";
    const char *recv = "MPI_Recv@main app.c:12;run app.c:40";
    for (int rank = 0; rank < 4; rank++) {
        struct rowset one;
        rowset_init(&one);
        struct prof_row *r = rowset_get(&one, ROW_MPI, send, NULL);
        red_stat_one(&r->n.count, 10, rank);
        red_stat_one(&r->n.time, 0.5 + rank, rank);
        red_stat_one(&r->n.sent, 8000, rank);
        hist_add(&r->n.calls, 1e-3);
        r = rowset_get(&one, ROW_INTERVAL, recv, send);
        red_stat_one(&r->n.count, 10, rank);
        red_stat_one(&r->n.time, 2.0, rank);
        r = rowset_get(&one, ROW_RANK, "compute", NULL);
        red_stat_one(&r->n.time, 2.0 + rank, rank);
        for (size_t i = 0; i < one.n; i++)
            prof_nums_merge(&rowset_get(&p->rows, one.rows[i].kind, one.rows[i].a,
                                        one.rows[i].b)->n, &one.rows[i].n);
        rowset_free(&one);
    }
}

/* Everything else a profile can hold: counters, memory, wait states and their causes, MPI_T
 * variables and events, predictions, notes, the compute histogram. */
static void fill_more(struct profile *p)
{
    const char *send = "MPI_Send@main app.c:10;run app.c:40";
    const char *bar = "MPI_Barrier@main app.c:20";
    p->interface = strdup("QMPI");
    p->thread_level = 3;
    p->ncounters = 2;
    p->counters[0] = strdup("PAPI_TOT_INS");
    p->counters[1] = strdup("mpi_t:unexpected_recvq_length");
    p->counter_note = strdup("PAPI_L1_DCM is not read");
    struct prof_row *r = rowset_get(&p->rows, ROW_MPI, send, NULL);
    red_stat_one(&r->n.ctr[0], 123456, 2);
    r->n.ctr_ranks[0][ctr_rank_bin(123456)] = 1;
    red_stat_one(&r->n.mem_allocs, 3, 1);
    red_stat_one(&r->n.mem_alloc, 4096, 1);
    red_stat_one(&r->n.mem_freed, 1024, 1);
    red_stat_one(&r->n.mem_live, 3072, 1);
    r->n.call_min = 1e-4;
    r->n.call_max = 2.5e-3;
    hist_add(&r->n.ranks, 0.5);
    r = rowset_get(&p->rows, ROW_MPI, bar, NULL);
    red_stat_one(&r->n.count, 1, 0);
    r = rowset_get(&p->rows, ROW_WAIT, "wait_at_barrier", bar);
    red_stat_one(&r->n.count, 2, 1);
    red_stat_one(&r->n.time, 0.125, 1);
    red_stat_one(&r->n.late, 0.125, 3);
    r->n.call_max = 0.0625;
    hist_add(&r->n.calls, 0.0625);
    r = rowset_get(&p->rows, ROW_CAUSE, "wait_at_barrier\nMPI_Barrier@main app.c:20",
                   "MPI_Recv@main app.c:12;run app.c:40\tMPI_Send@main app.c:10;run app.c:40");
    red_stat_one(&r->n.time, 0.1, 3);
    red_stat_one(&r->n.count, 2, 3);
    r = rowset_get(&p->rows, ROW_CAUSE, "wait_at_barrier\nMPI_Barrier@main app.c:20", "?");
    red_stat_one(&r->n.time, 0.025, 3);
    r = rowset_get(&p->rows, ROW_CAUSE, "wait_at_barrier\nMPI_Barrier@main app.c:20", send);
    red_stat_one(&r->n.time, 0.001, 2);
    r = rowset_get(&p->rows, ROW_PVAR, "unexpected_recvq_length", "level");
    red_stat_one(&r->n.time, 0.1 + 0.2, 0); /* 0.30000000000000004: 17 digits */
    char err[64];
    CHECK(profile_set_params(p, "tol=1234567.891", err, sizeof err) == 0);
    r = rowset_get(&p->rows, ROW_EVENT, "fake_barrier", bar);
    red_stat_one(&r->n.count, 6, 0);
    p->cvars_total = 120;
    p->pvars_total = 3;
    p->events_total = 0;
    p->mpit_note = strdup("the library has no events");
    p->ncvars = 2;
    p->cvars = calloc(2, sizeof *p->cvars);
    p->cvars[0].name = strdup("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM");
    p->cvars[0].value = strdup("3");
    p->cvars[0].written = strdup("recursive_doubling");
    p->cvars[0].origin = strdup("lua");
    p->cvars[0].before = strdup("0");
    p->cvars[1].name = strdup("MPIR_CVAR_CH4_EAGER_MAX_MSG_SIZE");
    p->cvars[1].value = strdup("16384");
    p->npredictions = 2;
    p->predictions = calloc(2, sizeof *p->predictions);
    p->predictions[0] = (struct prof_prediction){
        .target = strdup("p=1024"), .metric = strdup("compute (max)"), .family = strdup("pmnf"),
        .model = strdup("1 + 2 * p^(1)"), .value = 2049.0, .fit_error = 1.5,
        .uncertainty = 0.25, .low = 1900.5, .high = 2210.25, .coverage = 80, .extrapolated = 1};
    p->predictions[1] = (struct prof_prediction){
        .target = strdup("p=2"), .metric = strdup("mpi (max)"), .family = strdup("amdahl"),
        .model = strdup("0.5 + 8/p"), .value = 4.5, .fit_error = NAN, .uncertainty = NAN,
        .low = NAN, .high = NAN, .coverage = 0, .extrapolated = 0};
    p->prediction_note = strdup("one metric had too few runs");
    p->rank_hist_lo = 2;
    p->rank_hist_hi = 5;
    p->rank_hist[0] = 1;
    p->rank_hist[RANK_HIST_BINS - 1] = 3;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct strbuf sb;
    sb_init(&sb);
    char chunk[4096];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;)
        sb_add(&sb, chunk, n);
    fclose(f);
    return sb.data;
}

/* The first differing line of two texts, for the failure message. */
static void show_difference(const char *a, const char *b)
{
    int line = 1;
    const char *la = a;
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n') {
            line++;
            la = a + 1;
        }
    if (*a != *b)
        fprintf(stderr, "texts differ at line %d: \"%.80s\" vs \"%.80s\"\n", line, la,
                b - (a - la));
}

static void json_round_trip(const char *dir)
{
    struct profile p, q;
    profile_init(&p);
    fill(&p);
    char err[512];
    CHECK(profile_write(&p, dir, err, sizeof err) == 0);
    char *first = strdup(p.path);
    CHECK(profile_write(&p, dir, err, sizeof err) == 0); /* same second: a new name */
    CHECK(strcmp(first, p.path) != 0);
    profile_init(&q);
    CHECK(profile_read(&q, first, err, sizeof err) == 0);
    CHECK_STR(q.path, first);
    CHECK(q.ranks == 4 && q.argc == 1 && !strcmp(q.argv[0], "--size=7"));
    CHECK(q.nparams == 2 && !strcmp(q.params[0].key, "n") && !strcmp(q.params[0].value, "2048"));
    const struct prof_row *r = rowset_find(&q.rows, ROW_MPI,
                                           "MPI_Send@main app.c:10;run app.c:40", NULL);
    CHECK(r && r->n.count.sum == 40 && r->n.time.max == 3.5 && r->n.time.max_rank == 3);
    CHECK(r && r->n.sent.sum == 32000 && r->n.calls.count[hist_bin(1e-3)] == 4);
    CHECK(rowset_find(&q.rows, ROW_INTERVAL, "MPI_Recv@main app.c:12;run app.c:40",
                      "MPI_Send@main app.c:10;run app.c:40"));
    CHECK(profile_rank_metric(&q, "compute")->max == 5.0);
    CHECK(profile_rank_metric(&q, "compute")->sum == 14.0); /* 2 + 3 + 4 + 5 */
    CHECK(profile_rank_metric(&q, "nothing") == NULL);

    struct strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    free(p.path);
    p.path = NULL;
    free(q.path);
    q.path = NULL;
    summary_write(&p, 10, &a);
    summary_write(&q, 10, &b);
    CHECK(a.len > 0 && !strcmp(a.data, b.data)); /* report == in-job summary */
    CHECK(strstr(a.data, "== tardy summary") && strstr(a.data, "== MPI call paths") &&
          strstr(a.data, "== compute intervals") && strstr(a.data, "== compute time per rank"));
    for (char *line = a.data; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        CHECK(len <= 100);
        line = nl ? nl + 1 : NULL;
    }
    sb_free(&a);
    sb_free(&b);
    profile_free(&q);

    /* Everything: the file profile_write makes is profile_to_json's text and a newline, and
     * reading it back and writing it again gives the same text, byte for byte. */
    fill_more(&p);
    CHECK(profile_write(&p, dir, err, sizeof err) == 0);
    char *text = profile_to_json(&p), *file = slurp(p.path);
    size_t len = text ? strlen(text) : 0;
    CHECK(text && file && strlen(file) == len + 1 && !strncmp(text, file, len) &&
          file[len] == '\n');
    profile_init(&q);
    CHECK(profile_read(&q, p.path, err, sizeof err) == 0);
    char *again = profile_to_json(&q);
    CHECK(text && again && !strcmp(text, again));
    if (text && again && strcmp(text, again))
        show_difference(text, again);
    /* and some of it by value */
    CHECK_STR(q.interface, "QMPI");
    CHECK(q.ncounters == 2 && !strcmp(q.counters[1], "mpi_t:unexpected_recvq_length"));
    r = rowset_find(&q.rows, ROW_MPI, "MPI_Send@main app.c:10;run app.c:40", NULL);
    CHECK(r && r->n.ctr[0].sum == 123456 && r->n.ctr[0].max_rank == 2 &&
          r->n.ctr_ranks[0][ctr_rank_bin(123456)] == 1);
    CHECK(r && r->n.mem_live.sum == 3072 && r->n.call_max == 2.5e-3);
    r = rowset_find(&q.rows, ROW_CAUSE, "wait_at_barrier\nMPI_Barrier@main app.c:20", "?");
    CHECK(r && r->n.time.sum == 0.025);
    r = rowset_find(&q.rows, ROW_WAIT, "wait_at_barrier", "MPI_Barrier@main app.c:20");
    CHECK(r && r->n.late.max_rank == 3 && r->n.time.sum == 0.125);
    CHECK(q.ncvars == 2 && !strcmp(q.cvars[0].origin, "lua") && q.cvars[1].written == NULL);
    CHECK(q.npredictions == 2 && q.predictions[0].extrapolated &&
          q.predictions[0].uncertainty == 0.25 && isnan(q.predictions[1].fit_error));
    CHECK(q.rank_hist[RANK_HIST_BINS - 1] == 3 && q.rank_hist_hi == 5);
    r = rowset_find(&q.rows, ROW_PVAR, "unexpected_recvq_length", "level");
    CHECK(r && r->n.time.sum == 0.1 + 0.2);      /* every digit of a double */
    CHECK(q.nparams == 3 && !strcmp(q.params[2].key, "tol") &&
          strtod(q.params[2].value, NULL) == 1234567.891);
    free(text);
    free(file);
    free(again);
    free(first);
    profile_free(&p);
    profile_free(&q);
}

/* Version 2's text: a row per line, durations to the nanosecond, the histograms a row implies
 * left out and read back the same. */
static void compact(const char *dir)
{
    struct profile p, q;
    profile_init(&p);
    p.program = strdup("/x/app");
    p.ranks = 2;
    const char *one = "MPI_Bcast@main app.c:5", *two = "MPI_Recv@main app.c:6;run app.c:9";
    for (int rank = 0; rank < 2; rank++) {
        struct prof_nums n;
        prof_nums_init(&n); /* one call of 1 ms on each rank: histograms of one bin */
        red_stat_one(&n.count, 1, rank);
        red_stat_one(&n.time, 1e-3, rank);
        red_stat_one(&n.sent, 0, rank); /* no bytes: left out */
        red_stat_one(&n.recv, 0, rank);
        n.call_min = n.call_max = 1e-3;
        hist_add(&n.calls, 1e-3);
        hist_add(&n.ranks, 1e-3);
        prof_nums_merge(&rowset_get(&p.rows, ROW_MPI, one, NULL)->n, &n);
        double t = rank ? 0.6738360460003605 : 2e-6; /* two bins; needless digits */
        prof_nums_init(&n);
        red_stat_one(&n.count, 1, rank);
        red_stat_one(&n.time, t, rank);
        red_stat_one(&n.sent, 8 * rank, rank);
        red_stat_one(&n.recv, 0, rank);
        n.call_min = n.call_max = t;
        hist_add(&n.calls, t);
        hist_add(&n.ranks, t);
        prof_nums_merge(&rowset_get(&p.rows, ROW_MPI, two, NULL)->n, &n);
    }
    char *text = profile_to_json(&p), err[512];
    CHECK(text && strstr(text, "\n{\"function\":\"MPI_Bcast\",\"callpath\":0,"
                                "\"count\":[2,1,0,1,0,2],\"time\":[0.002,0.001,0,0.001,0,2],"));
    CHECK(text && strstr(text, "\"time\":[0.002,0.001,0,0.001,0,2],\"call_min\":0.001,"
                                "\"call_max\":0.001}")); /* no bytes, no histograms */
    CHECK(text && strstr(text, "\"time\":[0.673838046,2e-06,0,0.673836046,1,2],"
                                "\"sent\":[8,0,0,8,1,2],\"call_min\":2e-06,"));
    CHECK(text && !strstr(text, "0.6738360460003605"));
    CHECK(text && strstr(text, "\"histogram\":[[11,1,2e-06],[30,1,0.673836046]]"));
    CHECK(text && strstr(text, "\n\"files\":[\n\"app.c\"\n],\n"
                                "\"frames\":[\n[\"main\",0,5],\n[\"main\",0,6],\n"
                                "[\"run\",0,9]\n],\n\"callpaths\":[\n[0],\n[1,2]\n]"));
    CHECK(profile_write(&p, dir, err, sizeof err) == 0);
    profile_init(&q);
    CHECK(profile_read(&q, p.path, err, sizeof err) == 0);
    const struct prof_row *r = rowset_find(&q.rows, ROW_MPI, one, NULL);
    int b = hist_bin(1e-3);
    CHECK(r && r->n.calls.count[b] == 2 && r->n.calls.sum[b] == 2e-3);
    CHECK(r && r->n.ranks.count[b] == 2 && r->n.ranks.sum[b] == 2e-3);
    CHECK(r && r->n.sent.ranks == 2 && r->n.recv.max_rank == 0 && r->n.recv.sum == 0);
    r = rowset_find(&q.rows, ROW_MPI, two, NULL);
    CHECK(r && r->n.calls.count[hist_bin(2e-6)] == 1 && r->n.time.max == 0.673836046);
    char *again = profile_to_json(&q);
    CHECK(text && again && !strcmp(text, again));
    free(text);
    free(again);
    profile_free(&p);
    profile_free(&q);
}

/* A profile of version 1 (written by tardy before version 2: bench/micro ring at 3 ranks,
 * wait states on, two SDE counters) reads, and written again as version 2 it reads back to
 * the same profile: every row, the same summary. */
static void old_version(const char *dir)
{
    struct profile v1, w, v2; /* v1 as read; w read again and written (rounded) as v2 */
    char err[512];
    profile_init(&v1);
    profile_init(&w);
    CHECK(profile_read(&v1, OLD_PROFILE, err, sizeof err) == 0);
    CHECK(profile_read(&w, OLD_PROFILE, err, sizeof err) == 0);
    CHECK(v1.ranks == 3 && v1.ncounters == 2 && v1.cvars_total > 0);
    const char *waitall = "MPI_Waitall@ring bench/micro.c:60;main bench/micro.c:167";
    const struct prof_row *r = rowset_find(&v1.rows, ROW_WAIT, "late_sender", waitall);
    CHECK(r && r->n.count.sum == 42 && r->n.time.sum == 1.0099319969413045 &&
          r->n.calls.count[26] == 13 && r->n.ranks.count[29] == 3);
    CHECK(profile_rank_metric(&v1, "compute")->sum == 0.0008618279753136449);
    CHECK(profile_write(&w, dir, err, sizeof err) == 0);
    profile_init(&v2);
    CHECK(profile_read(&v2, w.path, err, sizeof err) == 0);
    CHECK(v2.rows.n == v1.rows.n && v2.ncounters == 2);
    for (size_t i = 0; i < v1.rows.n; i++) {
        const struct prof_row *a = &v1.rows.rows[i];
        const struct prof_row *b = rowset_find(&v2.rows, a->kind, a->a, a->b);
        CHECK(b && b->n.count.sum == a->n.count.sum && b->n.ctr[1].sum == a->n.ctr[1].sum);
        CHECK(b && fabs(b->n.time.sum - a->n.time.sum) <= 5e-10 && b->n.late.max_rank ==
              a->n.late.max_rank && b->n.time.max_rank == a->n.time.max_rank);
        for (int k = 0; b && k < HIST_BINS; k++)
            CHECK(b->n.calls.count[k] == a->n.calls.count[k] &&
                  b->n.ranks.count[k] == a->n.ranks.count[k] &&
                  fabs(b->n.calls.sum[k] - a->n.calls.sum[k]) <= 5e-10);
    }
    struct strbuf s1, s2;
    sb_init(&s1);
    sb_init(&s2);
    free(v1.path);
    v1.path = NULL;
    free(v2.path);
    v2.path = NULL;
    summary_write(&v1, 10, &s1);
    summary_write(&v2, 10, &s2);
    CHECK(s1.data && s2.data && !strcmp(s1.data, s2.data));
    if (s1.data && s2.data && strcmp(s1.data, s2.data))
        show_difference(s1.data, s2.data);
    sb_free(&s1);
    sb_free(&s2);
    profile_free(&v1);
    profile_free(&w);
    profile_free(&v2);
}

/* Write root with one change to dir/bad.json and read it: the read fails and the message
 * names the file and holds needle. */
static void rejected(const char *dir, json_t *root, const char *needle, int line)
{
    char path[600], err[512] = "";
    snprintf(path, sizeof path, "%s/bad.json", dir);
    CHECK(json_dump_file(root, path, 0) == 0);
    struct profile z;
    profile_init(&z);
    int rc = profile_read(&z, path, err, sizeof err);
    if (rc != -1 || strncmp(err, path, strlen(path)) || !strstr(err, needle)) {
        fprintf(stderr, "%s:%d: read %d, \"%s\", expected -1 and \"%s: ...%s...\"\n",
                __FILE__, line, rc, err, path, needle);
        check_failures++;
    }
    CHECK(z.path == NULL);
    profile_free(&z);
    json_decref(root);
}

#define REJECTED(root, needle) rejected(dir, root, needle, __LINE__)

static json_t *row0(json_t *root, const char *array)
{
    return json_array_get(json_object_get(root, array), 0);
}

static void corrupt(const char *dir)
{
    struct profile p;
    profile_init(&p);
    fill(&p);
    fill_more(&p);
    char *text = profile_to_json(&p);
    profile_free(&p);
    json_error_t je;
    json_t *good = json_loads(text, 0, &je), *j;
    CHECK(good != NULL);
    free(text);
    if (!good)
        return;

    /* the unchanged profile reads */
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/good.json", dir);
    CHECK(json_dump_file(good, path, 0) == 0);
    profile_init(&p);
    CHECK(profile_read(&p, path, err, sizeof err) == 0);
    profile_free(&p);

    j = json_deep_copy(good);
    json_object_set_new(j, "version", json_integer(PROFILE_VERSION + 1));
    REJECTED(j, "profile version not supported by this tardy");
    j = json_deep_copy(good);
    json_object_set_new(j, "version", json_integer(0));
    REJECTED(j, "profile version not supported by this tardy");
    j = json_deep_copy(good);
    json_object_del(j, "schema");
    REJECTED(j, "not a tardy profile (no \"schema\": \"tardy-profile\")");
    j = json_deep_copy(good);
    json_object_set_new(j, "schema", json_string("tardy-trace"));
    REJECTED(j, "not a tardy profile");
    REJECTED(json_array(), "not a tardy profile");
    j = json_deep_copy(good);
    json_object_set_new(j, "run", json_string("x"));
    REJECTED(j, "no \"run\" object");
    j = json_deep_copy(good);
    json_object_set_new(json_object_get(j, "run"), "ranks", json_integer(0));
    REJECTED(j, "run.ranks is missing or not positive");
    j = json_deep_copy(good);
    json_object_set_new(j, "mpi", json_object());
    REJECTED(j, "no \"mpi\" array");
    j = json_deep_copy(good);
    json_object_del(j, "callpaths");
    REJECTED(j, "no \"callpaths\" array");
    j = json_deep_copy(good);
    json_array_set_new(json_array_get(json_object_get(j, "callpaths"), 1), 0, json_integer(99));
    REJECTED(j, "a call path names a frame or file that is not in the tables");
    j = json_deep_copy(good);
    json_array_set_new(json_array_get(json_object_get(j, "frames"), 0), 1, json_integer(-1));
    REJECTED(j, "a call path names a frame or file that is not in the tables");
    j = json_deep_copy(good);
    json_object_del(j, "intervals");
    REJECTED(j, "no \"intervals\" array");
    j = json_deep_copy(good);
    json_object_set_new(row0(j, "mpi"), "callpath", json_integer(999));
    REJECTED(j, "a call site has no function or an unknown callpath id");
    j = json_deep_copy(good);
    json_object_del(row0(j, "mpi"), "function");
    REJECTED(j, "a call site has no function or an unknown callpath id");
    j = json_deep_copy(good);
    json_object_set_new(json_object_get(row0(j, "intervals"), "to"), "callpath",
                        json_string("0"));
    REJECTED(j, "a call site has no function or an unknown callpath id");
    j = json_deep_copy(good);
    json_object_set_new(row0(j, "waits"), "callpath", json_integer(-1));
    REJECTED(j, "a call site has no function or an unknown callpath id");
    j = json_deep_copy(good);
    json_object_set_new(row0(j, "mpi"), "count", json_integer(5));
    REJECTED(j, "a statistic is neither [sum, min, min_rank, max, max_rank, ranks] nor an object");
    j = json_deep_copy(good);
    json_object_set_new(json_object_get(j, "ranks"), "compute", json_real(1.5));
    REJECTED(j, "a statistic is neither");
    j = json_deep_copy(good);
    json_array_remove(json_object_get(row0(j, "intervals"), "time"), 5);
    REJECTED(j, "a statistic is neither");
    j = json_deep_copy(good);
    json_object_set_new(row0(j, "mpi"), "histogram", json_pack("[[i,i,f]]", HIST_BINS, 1, 0.1));
    REJECTED(j, "a histogram bin is out of range");
    j = json_deep_copy(good);
    json_object_set_new(row0(j, "mpi"), "histogram", json_pack("[[i,i,f]]", -1, 1, 0.1));
    REJECTED(j, "a histogram bin is out of range");
    j = json_deep_copy(good);
    json_object_set_new(row0(j, "intervals"), "histogram", json_object());
    REJECTED(j, "a histogram is not an array");
    j = json_deep_copy(good);
    json_object_set_new(json_object_get(json_object_get(row0(j, "mpi"), "counters"),
                                        "PAPI_TOT_INS"),
                        "ranks_histogram", json_pack("[[i,i]]", CTR_RANK_BINS, 1));
    REJECTED(j, "a counter histogram bin is out of range");
    j = json_deep_copy(good);
    json_object_set_new(j, "ranks", json_array());
    REJECTED(j, "no \"ranks\" object");
    json_decref(good);

    /* not JSON at all: truncated, empty, missing */
    snprintf(path, sizeof path, "%s/corrupt.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"schema\": \"tardy-profile\", \"version\": 1, \"run\": ", f);
    fclose(f);
    profile_init(&p);
    CHECK(profile_read(&p, path, err, sizeof err) < 0 && !strncmp(err, path, strlen(path)) &&
          strstr(err, "not a JSON profile (line 1:"));
    profile_free(&p);
    f = fopen(path, "w");
    fclose(f);
    profile_init(&p);
    CHECK(profile_read(&p, path, err, sizeof err) < 0 &&
          strstr(err, "not a JSON profile (line 1: the text ends early)"));
    profile_free(&p);
    /* not UTF-8, a second document after the first, a syntax error: where, on which line */
    const char *texts[][2] = {
        {"{\"schema\": \"tardy-\xff\"}", "(line 1: byte 0xff at column 19 is not UTF-8)"},
        {"{\"a\": 1}\n {\"b\": 2}\n", "(line 2: text after the JSON value from column 2"},
        {"{\"a\": 1,\n\"b\": [1; 2]}", "(line 2: not JSON from column 8, '; 2]}')"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        f = fopen(path, "w");
        fputs(texts[i][0], f);
        fclose(f);
        profile_init(&p);
        CHECK(profile_read(&p, path, err, sizeof err) < 0 && strstr(err, texts[i][1]));
        profile_free(&p);
    }
    snprintf(path, sizeof path, "%s/missing.json", dir);
    profile_init(&p);
    CHECK(profile_read(&p, path, err, sizeof err) < 0 && !strncmp(err, path, strlen(path)));
    profile_free(&p);
}

/* One row of kind (a, b) with per-rank totals time, count and bytes sent on each of ranks. */
static void add_row(struct profile *p, int kind, const char *a, const char *b, double time,
                    double count, double bytes)
{
    struct prof_row *r = rowset_get(&p->rows, kind, a, b);
    for (int rank = 0; rank < p->ranks; rank++) {
        struct red_stat t, c, s;
        red_stat_one(&t, time, rank);
        red_stat_one(&c, count, rank);
        red_stat_one(&s, bytes, rank);
        red_stat_merge(&r->n.time, &t);
        red_stat_merge(&r->n.count, &c);
        red_stat_merge(&r->n.sent, &s);
    }
}

/* Rows matched by key, per-rank means across rank counts, new and vanished rows, the order,
 * the JSON document (a C++ frame with spaces stays one function) and the text. */
static void diff(void)
{
    const char *send = "MPI_Send@std::map<int, int>::at map.h:5;main a.c:9";
    struct profile a, b;
    profile_init(&a);
    profile_init(&b);
    a.ranks = 2;
    b.ranks = 4;
    add_row(&a, ROW_MPI, send, NULL, 1.0, 10, 80);
    add_row(&b, ROW_MPI, send, NULL, 3.0, 10, 80);
    add_row(&a, ROW_MPI, "MPI_Recv@main a.c:7", NULL, 0.5, 1, 8);
    add_row(&b, ROW_MPI, "MPI_Bcast@main a.c:8", NULL, 0.1, 2, 0);
    add_row(&a, ROW_INTERVAL, "MPI_Recv@main a.c:7", send, 2.0, 5, 0);
    add_row(&b, ROW_WAIT, "late_sender", "MPI_Recv@main a.c:7", 0.25, 1, 0);
    add_row(&a, ROW_RANK, "wall", NULL, 10, 0, 0);
    add_row(&b, ROW_RANK, "wall", NULL, 12, 0, 0);
    struct profile_diff d;
    CHECK_INT(profile_diff(&a, &b, &d), 0);
    CHECK_INT(d.n, 5);
    if (d.n == 5) {
        CHECK_STR(d.rows[0].a, send);
        CHECK(d.rows[0].in_a.time == 1.0 && d.rows[0].in_b.time == 3.0); /* per-rank means */
        CHECK(d.rows[0].in_a.count == 10 && d.rows[0].in_b.count == 10);
        CHECK(d.rows[0].in_a.bytes == 80 && d.rows[0].in_b.bytes == 80);
        CHECK_STR(diff_status(&d.rows[0]), "both");
        CHECK_STR(diff_status(&d.rows[1]), "vanished"); /* -0.5 s before +0.1 s */
        CHECK_STR(diff_status(&d.rows[2]), "new");
        CHECK(d.rows[3].kind == ROW_INTERVAL && !strcmp(diff_status(&d.rows[3]), "vanished"));
        CHECK(d.rows[4].kind == ROW_WAIT && diff_change(&d.rows[4]) == 0.25);
    }
    CHECK(diff_rank_mean(&a, "wall") == 10 && isnan(diff_rank_mean(&a, "mpi")));
    char *text = diff_to_json(&d);
    json_error_t je;
    json_t *doc = text ? json_loads(text, 0, &je) : NULL;
    json_t *row = json_array_get(json_object_get(doc, "mpi"), 0);
    json_t *path = json_array_get(json_object_get(doc, "callpaths"),
                                  (size_t)json_integer_value(json_object_get(row, "callpath")));
    json_t *frame = json_array_get(json_object_get(doc, "frames"),
                                   (size_t)json_integer_value(json_array_get(path, 0)));
    CHECK(doc && json_is_false(json_object_get(doc, "same_ranks")));
    CHECK_STR(json_string_value(json_array_get(frame, 0)), "std::map<int, int>::at");
    CHECK(json_number_value(json_object_get(json_object_get(row, "time"), "relative")) == 2.0);
    CHECK(json_is_null(json_object_get(json_object_get(json_array_get(
        json_object_get(doc, "mpi"), 2), "time"), "relative")));
    CHECK(json_number_value(json_object_get(json_object_get(json_object_get(doc, "totals"),
                                                            "wall"), "change")) == 2.0);
    json_decref(doc);
    free(text);
    struct strbuf out;
    sb_init(&out);
    diff_write(&d, 10, &out);
    CHECK(out.data && strstr(out.data, "rank counts differ (A 2, B 4)"));
    CHECK(out.data && strstr(out.data, "MPI call sites: top 3 of 3 by change (1 new, 1 vanished)"));
    CHECK(out.data && strstr(out.data, "main:7 MPI_Recv -> std::map<int, int>::at:5 MP"));
    for (char *line = out.data; line && *line; line += strcspn(line, "\n") + 1)
        CHECK(strcspn(line, "\n") <= 100);
    sb_free(&out);
    profile_diff_free(&d);
    profile_free(&a);
    profile_free(&b);
}

/* A program named to break out of the page's data element stays data; the page of a
 * profile is named after it, and TARDY_HTML's write never replaces a file. */
static void html(const char *dir)
{
    struct profile p;
    profile_init(&p);
    p.program = strdup("/bin/</script><script>alert(1)</script><!--");
    p.ranks = 2;
    char *page = profile_to_html(&p);
    CHECK(page != NULL);
    CHECK(strstr(page, "alert(1)") != NULL);
    CHECK(strstr(page, "</script><script>alert") == NULL);
    CHECK(strstr(page, "<!--") == NULL);
    CHECK(strstr(page, "<title>tardy: script&gt;&lt;!-- on 2 ranks</title>") != NULL);
    CHECK(strstr(page, "id=\"tardy-data\">{") != NULL);
    free(page);
    char *name = html_path_of("/x/tardy-a-2p-1.json");
    CHECK_STR(name, "/x/tardy-a-2p-1.html");
    free(name);
    name = html_path_of("profile");
    CHECK_STR(name, "profile.html");
    free(name);
    char err[512], path[600];
    snprintf(path, sizeof path, "%s/tardy-a.json", dir);
    p.path = strdup(path);
    CHECK_INT(profile_write_html(&p, err, sizeof err), 0);
    CHECK_INT(profile_write_html(&p, err, sizeof err), -1);
    CHECK(strstr(err, "tardy-a.html") && strstr(err, "exists"));
    free(p.path);
    p.path = NULL;
    CHECK_INT(profile_write_html(&p, err, sizeof err), -1);
    CHECK(strstr(err, "TARDY_PROFILE=none") != NULL);
    profile_free(&p);
}

int main(void)
{
    char dir[] = "/tmp/tardy-unit-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    stat_merge();
    rowset();
    params_and_sites();
    json_round_trip(dir);
    compact(dir);
    old_version(dir);
    corrupt(dir);
    diff();
    html(dir);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
