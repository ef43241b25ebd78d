/* Counter columns: PAPI event checks and performance variables agreed across ranks, one
 * event set per thread, reads at MPI enter and leave, deltas per call site and interval. */
#include "counters.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit/own/own.h"
#include "papi_api.h"
#include "tool/base/base.h"

static struct {
    int count;                 /* columns every rank reads */
    int codes[PROF_COUNTERS];  /* PAPI events: columns [0, npapi) */
    char *names[PROF_COUNTERS];
    int npapi;                 /* performance variables: columns [npapi, count) */
    int multiplex;
    struct strbuf note;
    atomic_int start_warned;   /* a thread's event set could not start */
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

/* A hash of names[from, to), the same on ranks whose lists are the same. */
static int names_hash(char **names, int from, int to)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (int i = from; i < to; i++)
        for (const char *c = names[i]; *c; c++)
            h = (h ^ (unsigned char)*c) * 16777619u;
    return (int)(h & 0x3fffffff);
}

int ctr_start(const char *spec, const char *pvars, int multiplex, MPI_Comm comm)
{
    /* Per column, the lowest rank that cannot read it (INT_MAX: none); then -(most columns
     * any rank asked for), whether every rank can multiplex, and the hash of the performance
     * variables' names and its negation (min and -max: every rank found the same ones). One
     * fixed-size reduction, so ranks whose options differ still meet. */
    enum { NCOLS = PROF_COUNTERS, MPX, HASH, NHASH, NSLOTS };
    int mine[NCOLS + NSLOTS], all[NCOLS + NSLOTS], status[PROF_COUNTERS], rank;
    int keep[PROF_COUNTERS] = {0};
    char *names[PROF_COUNTERS] = {0};
    static char why[PROF_COUNTERS][256];
    sb_init(&ctr.note);
    ctr.multiplex = multiplex;
    int n = parse_spec(spec, names);
    own_Comm_rank(comm, &rank);
    if (n)
        check_events(names, n, status, why);
    int total = n + pc_start(pvars, PROF_COUNTERS - n, names + n, &ctr.note);
    for (int i = 0; i < PROF_COUNTERS; i++)
        mine[i] = i < total && (i >= n || status[i] == PAPI_OK) ? INT_MAX : rank;
    mine[NCOLS] = -total;
    mine[MPX] = ctr.multiplex;
    mine[HASH] = names_hash(names, n, total);
    mine[NHASH] = -mine[HASH];
    yw_allreduce(mine, all, NCOLS + NSLOTS, MPI_INT, MPI_MIN, comm);
    if (ctr.multiplex && !all[MPX])
        sb_puts(&ctr.note, "multiplexing is off: not possible on every rank\n");
    ctr.multiplex = all[MPX];
    if (multiplex && !ctr.multiplex && n && rank == 0)
        tardy_warn("TARDY_PAPI_MULTIPLEX: these events cannot be multiplexed; they are read "
                   "directly");
    int same_pvars = all[HASH] == -all[NHASH];
    if (!same_pvars && total > n)
        sb_puts(&ctr.note, "TARDY_PVAR_COUNTERS: the ranks found different performance "
                           "variables; none is read per call\n");
    for (int i = 0; i < -all[NCOLS]; i++) {
        if (all[i] == INT_MAX && (i < n || same_pvars)) {
            if (i < n)
                ctr.codes[ctr.npapi++] = ctr.codes[i];
            else
                keep[i - n] = 1;
            ctr.names[ctr.count++] = names[i];
            continue;
        }
        if (all[i] == rank && i < n)
            tardy_warn("PAPI event %s is not read: %s", names[i], why[i]);
        else if (all[i] == rank && i >= total)
            tardy_warn("TARDY_PAPI or TARDY_PVAR_COUNTERS differs between ranks: counter %d is "
                       "not read", i + 1);
        if (i < n)
            sb_printf(&ctr.note, "%s: not available on rank %d%s%s%s\n", names[i], all[i],
                      all[i] == rank ? " (" : "", all[i] == rank ? why[i] : "",
                      all[i] == rank ? ")" : "");
        else if (i < total && same_pvars)
            sb_printf(&ctr.note, "%s: not available on rank %d\n", names[i], all[i]);
        if (i < total)
            free(names[i]);
    }
    pc_keep(keep);
    return ctr.count;
}

struct ctr_thread *ctr_thread_new(void)
{
    if (!ctr.count)
        return NULL;
    struct ctr_thread *c = calloc(1, sizeof *c);
    int bad = -1, rc = c ? PAPI_OK : PAPI_ENOMEM;
    if (c)
        c->eventset = PAPI_NULL;
    if (c && ctr.npapi) {
        rc = make_eventset(&c->eventset, ctr.codes, ctr.npapi, ctr.multiplex, &bad);
        if (rc == PAPI_OK)
            rc = papi.start(c->eventset);
    }
    if (rc != PAPI_OK) {
        /* with performance variables only PAPI is not loaded: only memory can fail here */
        tardy_warn_once(&ctr.start_warned, "a thread's counters cannot start (%s%s%s); "
                        "that thread has no counters", bad >= 0 ? ctr.names[bad] : "",
                        bad >= 0 ? ": " : "", papi.strerror ? papi.strerror(rc) : "out of memory");
        if (c && c->eventset != PAPI_NULL) {
            papi.cleanup_eventset(c->eventset);
            papi.destroy_eventset(&c->eventset);
        }
        free(c);
        return NULL;
    }
    tab_init(&c->mpi, sizeof(struct ctr_row), ctr_row_init);
    tab_init(&c->intervals, sizeof(struct ctr_row), ctr_row_init);
    ctr_enter(c);
    memcpy(c->last, c->at_enter, sizeof c->last);
    memcpy(c->at_leave, c->at_enter, sizeof c->last);
    return c;
}

void ctr_enter(struct ctr_thread *c)
{
    if (ctr.npapi)
        papi.read(c->eventset, c->at_enter);
    if (ctr.count > ctr.npapi)
        pc_read(c->at_enter + ctr.npapi, c->pvar_buf);
}

void ctr_leave(struct ctr_thread *c)
{
    if (ctr.npapi)
        papi.read(c->eventset, c->at_leave);
    if (ctr.count > ctr.npapi)
        pc_read(c->at_leave + ctr.npapi, c->pvar_buf);
}

void ctr_account(struct ctr_thread *c, uint64_t from, uint64_t site)
{
    int n = ctr.count;
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

int ctr_count(void)
{
    return ctr.count;
}

const char *ctr_name(int i)
{
    return i >= 0 && i < ctr.count ? ctr.names[i] : "";
}

const char *ctr_note(void)
{
    return ctr.note.len ? ctr.note.data : NULL;
}

int ctr_multiplexed(void)
{
    return ctr.multiplex;
}
