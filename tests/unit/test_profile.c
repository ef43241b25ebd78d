/* Reduced statistics, the row set, the JSON profile (round trip, never overwritten, corrupt
 * and foreign files), and the summary (headings, 100 columns). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tool/profile/profile.h"

static void stat_merge(void)
{
    struct red_stat a, b, c;
    red_stat_one(&a, 5, 3);
    red_stat_one(&b, 9, 1);
    red_stat_one(&c, 9, 0);
    red_stat_merge(&a, &b);
    CHECK(a.max == 9 && a.max_rank == 1 && a.min == 5 && a.min_rank == 3 && a.ranks == 2);
    red_stat_merge(&a, &c); /* a tie goes to the lower rank, whatever the order */
    CHECK(a.max_rank == 0 && a.sum == 23 && a.ranks == 3);
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

static void json_round_trip(void)
{
    char dir[] = "/tmp/tardy-unit-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
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
    CHECK(q.ranks == 4 && q.argc == 1 && !strcmp(q.argv[0], "--size=7"));
    CHECK(q.nparams == 2 && !strcmp(q.params[0].key, "n") && !strcmp(q.params[0].value, "2048"));
    const struct prof_row *r = rowset_find(&q.rows, ROW_MPI,
                                           "MPI_Send@main app.c:10;run app.c:40", NULL);
    CHECK(r && r->n.count.sum == 40 && r->n.time.max == 3.5 && r->n.time.max_rank == 3);
    CHECK(r && r->n.sent.sum == 32000 && r->n.calls.count[hist_bin(1e-3)] == 4);
    CHECK(rowset_find(&q.rows, ROW_INTERVAL, "MPI_Recv@main app.c:12;run app.c:40",
                      "MPI_Send@main app.c:10;run app.c:40"));
    CHECK(profile_rank_metric(&q, "compute")->max == 5.0);

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

    char bad[600];
    snprintf(bad, sizeof bad, "%s/corrupt.json", dir);
    FILE *f = fopen(bad, "w");
    fputs("{\"schema\": \"tardy-profile\", \"version\": 1, \"run\": ", f);
    fclose(f);
    struct profile z;
    profile_init(&z);
    CHECK(profile_read(&z, bad, err, sizeof err) < 0 && strstr(err, bad) &&
          strstr(err, "not a JSON profile"));
    profile_free(&z);
    f = fopen(bad, "w");
    fputs("{\"name\": \"something else\"}", f);
    fclose(f);
    profile_init(&z);
    CHECK(profile_read(&z, bad, err, sizeof err) < 0 && strstr(err, "not a tardy profile"));
    profile_free(&z);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    free(first);
    profile_free(&p);
    profile_free(&q);
}

int main(void)
{
    stat_merge();
    json_round_trip();
    CHECK_DONE();
}
