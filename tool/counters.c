/* PAPI counters: event checks agreed across ranks, one event set per thread, reads at MPI
 * enter and leave, deltas per call site and per interval. */
#include "counters.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "own.h"
#include "papi_api.h"
#include "warn.h"

int ctr_count;

static struct {
    int codes[PROF_COUNTERS];
    char *names[PROF_COUNTERS];
    int multiplex;
    struct strbuf note;
} ctr;

/* PAPI's reason for rc, with the component's own reason when the component is disabled. */
static void reason(int rc, int code, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", papi.strerror(rc));
    if (rc == PAPI_ECMP_DISABLED || rc == PAPI_ENOCMP) {
        const PAPI_component_info_t *ci = papi.get_component_info(papi.get_event_component(code));
        if (ci && ci->disabled && ci->disabled_reason[0] && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " (%.40s: %.160s)", ci->name, ci->disabled_reason);
    }
}

/* An event set holding codes[0..n), multiplexed if asked; PAPI_OK or PAPI's error, with the
 * index of the event that failed in *bad (-1 for the set itself). */
static int make_eventset(int *es, const int *codes, int n, int multiplex, int *bad)
{
    *es = PAPI_NULL;
    *bad = -1;
    int rc = papi.create_eventset(es);
    if (rc != PAPI_OK)
        return rc;
    if (multiplex && n > 0) {
        rc = papi.assign_eventset_component(*es, papi.get_event_component(codes[0]));
        if (rc == PAPI_OK)
            rc = papi.set_multiplex(*es);
        if (rc != PAPI_OK)
            return rc;
    }
    for (int i = 0; i < n; i++) {
        rc = papi.add_event(*es, codes[i]);
        if (rc != PAPI_OK) {
            *bad = i;
            return rc;
        }
    }
    return PAPI_OK;
}

/* Can codes[0..n) be counted together? PAPI_OK or PAPI's error. */
static int try_eventset(const int *codes, int n, int multiplex)
{
    int es, bad;
    int rc = make_eventset(&es, codes, n, multiplex, &bad);
    if (es != PAPI_NULL) {
        papi.cleanup_eventset(es);
        papi.destroy_eventset(&es);
    }
    return rc;
}

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

/* Split spec into at most PROF_COUNTERS names; extra ones are reported in note. */
static int parse_spec(const char *spec, char **names)
{
    int n = 0;
    const char *s = spec;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (len && n < PROF_COUNTERS)
            names[n++] = strndup(s, len);
        else if (len)
            sb_printf(&ctr.note, "%.*s: more than %d events; not read\n", (int)len, s,
                      PROF_COUNTERS);
        s += len + (s[len] == ',');
    }
    return n;
}

/* This rank's verdict per event: 0 available, else a PAPI error code (why[] says more). */
static void check_events(char **names, int n, int *status, char why[][256])
{
    char loaded[256];
    if (papi_load(loaded, sizeof loaded) < 0) {
        for (int i = 0; i < n; i++) {
            status[i] = PAPI_ENOSUPP;
            snprintf(why[i], 256, "%s", loaded);
        }
        return;
    }
    int rc = papi.library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        for (int i = 0; i < n; i++) {
            status[i] = rc < 0 ? rc : PAPI_EINVAL;
            snprintf(why[i], 256, "PAPI_library_init: %s", papi.strerror(status[i]));
        }
        return;
    }
    papi.thread_init(thread_id);
    if (ctr.multiplex && (rc = papi.multiplex_init()) != PAPI_OK) {
        sb_printf(&ctr.note, "multiplexing is off: %s\n", papi.strerror(rc));
        ctr.multiplex = 0;
    }
    int ok[PROF_COUNTERS], nok = 0;
    for (int i = 0; i < n; i++) {
        status[i] = papi.event_name_to_code(names[i], &ctr.codes[i]);
        if (status[i] == PAPI_OK)
            status[i] = try_eventset(&ctr.codes[i], 1, 0);
        if (status[i] != PAPI_OK)
            reason(status[i], ctr.codes[i], why[i], 256);
        else
            ok[nok++] = ctr.codes[i];
    }
    if (ctr.multiplex && nok && (rc = try_eventset(ok, nok, 1)) != PAPI_OK) {
        sb_printf(&ctr.note, "multiplexing is off: %s\n", papi.strerror(rc));
        ctr.multiplex = 0;
    }
}

int ctr_start(const char *spec, int multiplex, MPI_Comm comm)
{
    /* Per event, the lowest rank that cannot read it (INT_MAX: none); last, -(most events
     * any rank asked for), and whether every rank can multiplex. One fixed-size reduction, so ranks whose TARDY_PAPI differs
     * still meet. */
    int mine[PROF_COUNTERS + 2], all[PROF_COUNTERS + 2], status[PROF_COUNTERS], rank;
    char *names[PROF_COUNTERS] = {0};
    static char why[PROF_COUNTERS][256];
    sb_init(&ctr.note);
    ctr.multiplex = multiplex;
    int n = parse_spec(spec, names);
    own_Comm_rank(comm, &rank);
    if (n)
        check_events(names, n, status, why);
    for (int i = 0; i < PROF_COUNTERS; i++)
        mine[i] = i < n && status[i] == PAPI_OK ? INT_MAX : rank;
    mine[PROF_COUNTERS] = -n;
    mine[PROF_COUNTERS + 1] = ctr.multiplex;
    own_Allreduce(mine, all, PROF_COUNTERS + 2, MPI_INT, MPI_MIN, comm);
    if (ctr.multiplex && !all[PROF_COUNTERS + 1])
        sb_puts(&ctr.note, "multiplexing is off: not possible on every rank\n");
    ctr.multiplex = all[PROF_COUNTERS + 1];
    if (multiplex && !ctr.multiplex && n && rank == 0)
        tardy_warn("TARDY_PAPI_MULTIPLEX: these events cannot be multiplexed; they are read "
                   "directly");
    for (int i = 0; i < -all[PROF_COUNTERS]; i++) {
        if (all[i] == INT_MAX) {
            ctr.codes[ctr_count] = ctr.codes[i];
            ctr.names[ctr_count++] = names[i];
            continue;
        }
        if (all[i] == rank && i < n)
            tardy_warn("PAPI event %s is not read: %s", names[i], why[i]);
        else if (all[i] == rank)
            tardy_warn("TARDY_PAPI differs between ranks: its event %d is not read", i + 1);
        if (i < n)
            sb_printf(&ctr.note, "%s: not available on rank %d%s%s%s\n", names[i], all[i],
                      all[i] == rank ? " (" : "", all[i] == rank ? why[i] : "",
                      all[i] == rank ? ")" : "");
        free(names[i]);
    }
    return ctr_count;
}

struct ctr_thread *ctr_thread_new(void)
{
    static atomic_int warned;
    if (!ctr_count)
        return NULL;
    struct ctr_thread *c = calloc(1, sizeof *c);
    int bad = -1, rc = c ? make_eventset(&c->eventset, ctr.codes, ctr_count, ctr.multiplex, &bad)
                    : PAPI_ENOMEM;
    if (rc == PAPI_OK)
        rc = papi.start(c->eventset);
    if (rc != PAPI_OK) {
        if (!atomic_exchange(&warned, 1))
            tardy_warn("a thread's PAPI counters cannot start (%s%s%s); that thread has no "
                       "counters", bad >= 0 ? ctr.names[bad] : "", bad >= 0 ? ": " : "",
                       papi.strerror(rc));
        if (c && c->eventset != PAPI_NULL) {
            papi.cleanup_eventset(c->eventset);
            papi.destroy_eventset(&c->eventset);
        }
        free(c);
        return NULL;
    }
    tab_init(&c->mpi, sizeof(struct ctr_row), ctr_row_init);
    tab_init(&c->intervals, sizeof(struct ctr_row), ctr_row_init);
    papi.read(c->eventset, c->last);
    memcpy(c->at_enter, c->last, sizeof c->last);
    memcpy(c->at_leave, c->last, sizeof c->last);
    return c;
}

void ctr_enter(struct ctr_thread *c)
{
    papi.read(c->eventset, c->at_enter);
}

void ctr_leave(struct ctr_thread *c)
{
    papi.read(c->eventset, c->at_leave);
}

void ctr_account(struct ctr_thread *c, uint64_t from, uint64_t site)
{
    int n = ctr_count;
    struct ctr_row *r = tab_get(&c->mpi, site, 0);
    if (r)
        for (int i = 0; i < n; i++)
            r->v[i] += c->at_leave[i] - c->at_enter[i];
    if (from && (r = tab_get(&c->intervals, from, site)))
        for (int i = 0; i < n; i++)
            r->v[i] += c->at_enter[i] - c->last[i];
    memcpy(c->last, c->at_leave, sizeof c->last);
}

void ctr_row_init(void *row)
{
    memset(row, 0, sizeof(struct ctr_row));
}

const char *ctr_name(int i)
{
    return i >= 0 && i < ctr_count ? ctr.names[i] : "";
}

const char *ctr_note(void)
{
    return ctr.note.len ? ctr.note.data : NULL;
}

int ctr_multiplexed(void)
{
    return ctr.multiplex;
}
