/* MPI_T: control variables written after MPI_Init and recorded at finalize, performance
 * variables started after MPI_Init and read at finalize, events counted per call site. All
 * through own_T_ (tardy's own calls), so an application's own MPI_T use is untouched. */
#include "mpi_t.h"

#include <ctype.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/base/base.h"
#include "tool/core/core.h"
#include "mpit/own/own.h"

#define MT_MAX_PVARS 64
#define MT_MAX_EVENTS 64
/* Distinct control variables tardy writes (TARDY_CVARS and tardy.on_init together): each is
 * recorded in the profile, so a write beyond these is refused with a warning. */
#define MT_MAX_WRITES 64
#define MT_NAME 256
/* One NAME=VALUE, and everything tardy.on_init asked for as rank 0 broadcasts it. */
#define MT_ITEM 1280
#define MT_SETTINGS_MAX 16384
/* A performance variable with one value per peer (Open MPI's ob1 queue lengths bound to a
 * communicator hold one per rank of it) is read when it has at most this many elements. */
#define MT_MAX_ELEMS 4096

struct mt_write {
    char *name, *asked, *before;
    const char *origin; /* "option" or "lua" */
};

struct mt_pvar {
    MPI_T_pvar_handle handle;
    MPI_Datatype type;
    char name[MT_NAME];
    int cls, count, size;
};

/* Occurrences of event k (k1) inside call site (k2). */
struct mt_event_row {
    uint64_t k, site;
    uint64_t n;
};

static struct {
    int on, rank;
    int ncvars, npvars, nevents;
    struct mt_write writes[MT_MAX_WRITES];
    int nwrites;
    int session_open;
    MPI_T_pvar_session session;
    struct mt_pvar pvars[MT_MAX_PVARS];
    int npv;
    unsigned long long elems[MT_MAX_ELEMS];
    struct strbuf note;
#if MPI_VERSION >= 4
    MPI_T_event_registration events[MT_MAX_EVENTS];
    char event_names[MT_MAX_EVENTS][MT_NAME];
    int nev;
    pthread_mutex_t lock;
    struct table counts;
#endif
} mt;

/* The value in buf of an integer or floating-point MPI_T type, as a double; -1 if the type
 * is not one of those. */
static int as_number(MPI_Datatype t, const void *buf, double *v)
{
    if (t == MPI_INT)
        *v = *(const int *)buf;
    else if (t == MPI_UNSIGNED)
        *v = *(const unsigned *)buf;
    else if (t == MPI_UNSIGNED_LONG)
        *v = (double)*(const unsigned long *)buf;
    else if (t == MPI_UNSIGNED_LONG_LONG)
        *v = (double)*(const unsigned long long *)buf;
    else if (t == MPI_COUNT)
        *v = (double)*(const MPI_Count *)buf;
    else if (t == MPI_DOUBLE)
        *v = *(const double *)buf;
    else
        return -1;
    return 0;
}

/* Store integer x in buf as type t; -1 if t is not an integer type. */
static int store_int(MPI_Datatype t, long long x, void *buf)
{
    if (t == MPI_INT)
        *(int *)buf = (int)x;
    else if (t == MPI_UNSIGNED)
        *(unsigned *)buf = (unsigned)x;
    else if (t == MPI_UNSIGNED_LONG)
        *(unsigned long *)buf = (unsigned long)x;
    else if (t == MPI_UNSIGNED_LONG_LONG)
        *(unsigned long long *)buf = (unsigned long long)x;
    else if (t == MPI_COUNT)
        *(MPI_Count *)buf = (MPI_Count)x;
    else
        return -1;
    return 0;
}

/* ---- control variables ----------------------------------------------------------------- */

struct cvar {
    int index, count, bind, scope;
    char name[MT_NAME], desc[4096];
    MPI_Datatype type;
    MPI_T_enum en;
    MPI_T_cvar_handle handle;
    char buf[4096];
};

static int cvar_info(int index, struct cvar *c)
{
    int nlen = sizeof c->name, dlen = sizeof c->desc, verbosity;
    c->index = index;
    c->handle = MPI_T_CVAR_HANDLE_NULL;
    return own_T_cvar_get_info(index, c->name, &nlen, &verbosity, &c->type, &c->en, c->desc,
                                &dlen, &c->bind, &c->scope);
}

/* A handle for c, bound to MPI_COMM_WORLD when c belongs to communicators; -1 when its value
 * does not fit c->buf (strings of up to 4 KiB do). */
static int cvar_open(struct cvar *c)
{
    MPI_Comm world = MPI_COMM_WORLD;
    int size;
    if (c->bind != MPI_T_BIND_NO_OBJECT && c->bind != MPI_T_BIND_MPI_COMM)
        return -1;
    if (own_Type_size(c->type, &size) != MPI_SUCCESS || size < 1)
        size = 8;
    if (own_T_cvar_handle_alloc(c->index, c->bind == MPI_T_BIND_MPI_COMM ? &world : NULL,
                                &c->handle, &c->count) != MPI_SUCCESS)
        return -1;
    if (c->count < 1 || (size_t)c->count * (size_t)size >= sizeof c->buf) {
        own_T_cvar_handle_free(&c->handle);
        return -1;
    }
    return 0;
}

static void cvar_close(struct cvar *c)
{
    if (c->handle != MPI_T_CVAR_HANDLE_NULL)
        own_T_cvar_handle_free(&c->handle);
}

/* The value of an open c as text: an enumeration's item name, a number or a string. */
static int cvar_text(struct cvar *c, char *out, size_t len)
{
    double v;
    memset(c->buf, 0, sizeof c->buf);
    if (own_T_cvar_read(c->handle, c->buf) != MPI_SUCCESS)
        return -1;
    if (c->type == MPI_CHAR) {
        snprintf(out, len, "%.*s", c->count, c->buf);
        return 0;
    }
    if (as_number(c->type, c->buf, &v) < 0)
        return -1;
    snprintf(out, len, "%.17g", v);
    int items;
    char name[MT_NAME];
    if (c->en != MPI_T_ENUM_NULL && own_T_enum_get_info(c->en, &items, name,
                                                         &(int){sizeof name}) == MPI_SUCCESS) {
        for (int i = 0; i < items; i++) {
            int value, nlen = sizeof name;
            if (own_T_enum_get_item(c->en, i, &value, name, &nlen) == MPI_SUCCESS &&
                value == (int)v) {
                snprintf(out, len, "%s", name);
                break;
            }
        }
    }
    return 0;
}

/* MPICH lists an integer selector's values by name in its description, in value order,
 * each as "name   - text" (the line breaks are lost, so a name may be glued to the end of
 * the previous text). The position of want among them, or -1. */
static long long described_value(const char *desc, const char *want)
{
    size_t wlen = strlen(want);
    long long k = 0;
    for (const char *s = strstr(desc, " - "); s; s = strstr(s + 3, " - "), k++) {
        const char *end = s;
        while (end > desc && end[-1] == ' ')
            end--;
        const char *word = end;
        while (word > desc && (word[-1] == '_' || isalnum((unsigned char)word[-1])))
            word--;
        if ((size_t)(end - word) >= wlen && !strncmp(end - wlen, want, wlen) &&
            (end - wlen == word || end[-(long)wlen - 1] != '_'))
            return k;
    }
    return -1;
}

/* Parse text for c into c->buf: a number, an enumeration item's name or (MPICH) a name in
 * the description. -1 when it is none of these. */
static int cvar_parse(struct cvar *c, const char *text)
{
    char *end;
    memset(c->buf, 0, sizeof c->buf);
    if (c->type == MPI_CHAR) {
        if (strlen(text) >= (size_t)c->count)
            return -1;
        strcpy(c->buf, text);
        return 0;
    }
    if (c->type == MPI_DOUBLE) {
        *(double *)c->buf = strtod(text, &end);
        return *text && !*end ? 0 : -1;
    }
    long long x = strtoll(text, &end, 0);
    if (*text && !*end)
        return store_int(c->type, x, c->buf);
    int items;
    char name[MT_NAME];
    if (c->en != MPI_T_ENUM_NULL && own_T_enum_get_info(c->en, &items, name,
                                                         &(int){sizeof name}) == MPI_SUCCESS) {
        for (int i = 0; i < items; i++) {
            int value, nlen = sizeof name;
            if (own_T_enum_get_item(c->en, i, &value, name, &nlen) == MPI_SUCCESS &&
                !strcasecmp(name, text))
                return store_int(c->type, value, c->buf);
        }
        return -1;
    }
    x = described_value(c->desc, text);
    return x < 0 ? -1 : store_int(c->type, x, c->buf);
}

static const char *scope_name(int scope)
{
    return scope == MPI_T_SCOPE_CONSTANT ? "constant" : scope == MPI_T_SCOPE_READONLY
                                                            ? "read-only" : "settable";
}

static int find_write(const char *name)
{
    for (int i = 0; i < mt.nwrites; i++)
        if (!strcmp(mt.writes[i].name, name))
            return i;
    return -1;
}

/* Remember that origin wrote value to name (before: its value until then). */
static void note_write(const char *name, const char *value, const char *before,
                       const char *origin)
{
    int w = find_write(name);
    if (w < 0) {
        w = mt.nwrites++;
        mt.writes[w].name = strdup(name);
        mt.writes[w].before = strdup(before);
    } else {
        free(mt.writes[w].asked);
    }
    mt.writes[w].asked = strdup(value);
    mt.writes[w].origin = origin;
}

/* Write one NAME=VALUE for origin; the reason it failed (for rank 0's warning) or NULL. */
static const char *write_one(const char *name, const char *value, const char *origin,
                             char *why, size_t len)
{
    int index;
    char before[MT_NAME] = "";
    const char *fail = why;
    if (find_write(name) < 0 && mt.nwrites == MT_MAX_WRITES) {
        snprintf(why, len, "tardy writes at most %d control variables", MT_MAX_WRITES);
        return why;
    }
    struct cvar *c = malloc(sizeof *c);
    if (!c)
        return "out of memory";
    c->handle = MPI_T_CVAR_HANDLE_NULL;
    if (own_T_cvar_get_index(name, &index) != MPI_SUCCESS || cvar_info(index, c) != MPI_SUCCESS)
        snprintf(why, len, "this MPI library has no control variable %.200s", name);
    else if (c->scope == MPI_T_SCOPE_CONSTANT || c->scope == MPI_T_SCOPE_READONLY)
        snprintf(why, len, "%.200s is %.200s", name, scope_name(c->scope));
    else if (cvar_open(c) < 0)
        snprintf(why, len, "%.200s belongs to an object tardy cannot bind", name);
    else if (cvar_text(c, before, sizeof before), cvar_parse(c, value) < 0)
        snprintf(why, len, "'%.200s' is not a value of %.200s", value, name);
    else if (own_T_cvar_write(c->handle, c->buf) != MPI_SUCCESS)
        snprintf(why, len, "%.200s cannot be set now (MPI_T_cvar_write failed)", name);
    else
        fail = NULL;
    if (!fail)
        note_write(name, value, before, origin);
    cvar_close(c);
    free(c);
    return fail;
}

/* Write the NAME=VALUE items of list (separated by sep) for origin, in order; rank 0 warns
 * about each item that is not written, naming what asked for it. The one way tardy writes
 * control variables. */
static void write_list(const char *list, char sep, const char *origin, const char *what)
{
    char item[MT_ITEM], why[512];
    const char seps[2] = {sep, '\0'};
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, seps);
        if (len) {
            const char *fail = "not NAME=VALUE";
            snprintf(item, sizeof item, "%.*s", (int)len, s);
            char *eq = strchr(item, '=');
            if (len >= sizeof item)
                fail = "longer than tardy writes";
            else if (eq && eq != item) {
                *eq = '\0';
                fail = write_one(item, eq + 1, origin, why, sizeof why);
                *eq = '=';
            }
            if (fail && mt.rank == 0)
                tardy_warn("%s: %.300s: %s; not written", what, item, fail);
        }
        s += len + (s[len] == sep);
    }
}

void mt_write_settings(const char *settings, MPI_Comm comm)
{
    static char buf[MT_SETTINGS_MAX]; /* untouched (no memory) unless a hook sets something */
    int len = 0, rank;
    MPI_Request r;
    own_Comm_rank(comm, &rank);
    if (rank == 0 && settings && *settings) {
        len = (int)strlen(settings);
        if (len < MT_SETTINGS_MAX) {
            memcpy(buf, settings, (size_t)len);
        } else {
            tardy_warn("tardy.on_init: its settings take %d bytes, more than %d; none is "
                       "written", len, MT_SETTINGS_MAX - 1);
            len = 0;
        }
    }
    own_Ibcast(&len, 1, MPI_INT, 0, comm, &r);
    yw_wait(&r);
    if (len <= 0 || len >= MT_SETTINGS_MAX)
        return;
    own_Ibcast(buf, len, MPI_CHAR, 0, comm, &r);
    yw_wait(&r);
    buf[len] = '\0';
    if (mt.on)
        write_list(buf, '\n', "lua", "tardy.on_init");
}

/* ---- performance variables -------------------------------------------------------------- */

static const char *class_name(int cls)
{
    static const struct {
        int cls;
        const char *name;
    } names[] = {{MPI_T_PVAR_CLASS_STATE, "state"}, {MPI_T_PVAR_CLASS_LEVEL, "level"},
                 {MPI_T_PVAR_CLASS_SIZE, "size"}, {MPI_T_PVAR_CLASS_PERCENTAGE, "percentage"},
                 {MPI_T_PVAR_CLASS_HIGHWATERMARK, "highwatermark"},
                 {MPI_T_PVAR_CLASS_LOWWATERMARK, "lowwatermark"},
                 {MPI_T_PVAR_CLASS_COUNTER, "counter"}, {MPI_T_PVAR_CLASS_AGGREGATE, "aggregate"},
                 {MPI_T_PVAR_CLASS_TIMER, "timer"}, {MPI_T_PVAR_CLASS_GENERIC, "generic"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].cls == cls)
            return names[i].name;
    return "?";
}

/* Can the elements of a pvar of class cls be combined into one value? Sizes, levels,
 * counters, aggregates and timers add up; high- and low-water marks and percentages keep
 * their extreme. States and generic values cannot. */
static int combinable(int cls)
{
    return cls != MPI_T_PVAR_CLASS_STATE && cls != MPI_T_PVAR_CLASS_GENERIC;
}

static double combine(int cls, double acc, double v)
{
    if (cls == MPI_T_PVAR_CLASS_HIGHWATERMARK || cls == MPI_T_PVAR_CLASS_PERCENTAGE)
        return v > acc ? v : acc;
    if (cls == MPI_T_PVAR_CLASS_LOWWATERMARK)
        return v < acc ? v : acc;
    return acc + v;
}

/* Allocate (and start, unless continuous) the pvars matching TARDY_PVARS. */
static void start_pvars(void)
{
    int skipped = 0;
    for (int i = 0; i < mt.npvars; i++) {
        struct mt_pvar *p = &mt.pvars[mt.npv];
        char desc[1024];
        int nlen = sizeof p->name, dlen = sizeof desc, verbosity, bind, readonly, continuous,
            atomic;
        MPI_T_enum en;
        MPI_Comm world = MPI_COMM_WORLD;
        double v;
        if (own_T_pvar_get_info(i, p->name, &nlen, &verbosity, &p->cls, &p->type, &en, desc,
                                 &dlen, &bind, &readonly, &continuous, &atomic) != MPI_SUCCESS ||
            !gl_match(cfg.pvars, p->name))
            continue;
        if (mt.npv == MT_MAX_PVARS || (bind != MPI_T_BIND_NO_OBJECT &&
                                       bind != MPI_T_BIND_MPI_COMM) ||
            as_number(p->type, &(long long){0}, &v) < 0 ||
            own_Type_size(p->type, &p->size) != MPI_SUCCESS ||
            p->size > (int)sizeof mt.elems[0]) {
            skipped++;
            continue;
        }
        if (!mt.session_open && own_T_pvar_session_create(&mt.session) != MPI_SUCCESS)
            return;
        mt.session_open = 1;
        if (own_T_pvar_handle_alloc(mt.session, i, bind == MPI_T_BIND_MPI_COMM ? &world : NULL,
                                     &p->handle, &p->count) != MPI_SUCCESS) {
            skipped++;
            continue;
        }
        if (p->count < 1 || (p->count > 1 && !combinable(p->cls)) ||
            (size_t)p->count * (size_t)p->size > sizeof mt.elems) {
            own_T_pvar_handle_free(mt.session, &p->handle);
            skipped++;
            continue;
        }
        if (!continuous)
            own_T_pvar_start(mt.session, p->handle);
        mt.npv++;
    }
    if (skipped)
        sb_printf(&mt.note, "%d performance variables matching TARDY_PVARS are not read "
                            "(non-numeric, arrays of states or of more than %d elements, bound "
                            "to objects other than MPI_COMM_WORLD, or beyond %d)\n",
                  skipped, MT_MAX_ELEMS, MT_MAX_PVARS);
}

/* One row per pvar: its value on this rank, an array's elements combined by class. */
void mt_pvar_rows(struct rowset *rs, int rank)
{
    for (int i = 0; i < mt.npv; i++) {
        struct mt_pvar *p = &mt.pvars[i];
        const char *e = (const char *)mt.elems;
        double v, sum = 0;
        memset(mt.elems, 0, (size_t)p->count * (size_t)p->size);
        if (own_T_pvar_read(mt.session, p->handle, mt.elems) != MPI_SUCCESS ||
            as_number(p->type, e, &sum) < 0)
            continue;
        for (int k = 1; k < p->count && as_number(p->type, e + (size_t)k * p->size, &v) == 0; k++)
            sum = combine(p->cls, sum, v);
        if (p->cls == MPI_T_PVAR_CLASS_TIMER && sum < 0) {
            /* MPICH's ch3 timers read as minus the start time while they run: no value */
            if (rank == 0)
                sb_printf(&mt.note, "%s: the library read a negative timer (%g); not recorded\n",
                          p->name, sum);
            continue;
        }
        struct prof_row *r = rowset_get(rs, ROW_PVAR, p->name, class_name(p->cls));
        if (r) /* the value only: what the profile stores, so a run read back is the same */
            red_stat_one(&r->n.time, sum, rank);
    }
}

/* ---- events (MPI 4.0) --------------------------------------------------------------------- */

#if MPI_VERSION >= 4
static void event_cb(MPI_T_event_instance e, MPI_T_event_registration reg,
                     MPI_T_cb_safety safety, void *k)
{
    (void)e, (void)reg, (void)safety;
    /* The thread's MPI call in progress, if the event happens inside one. */
    uint64_t site = ev_self ? ev_self->mem_site : 0;
    pthread_mutex_lock(&mt.lock);
    struct mt_event_row *r = tab_get(&mt.counts, (uint64_t)(uintptr_t)k, site);
    if (r)
        r->n++;
    pthread_mutex_unlock(&mt.lock);
}

static void event_row_init(void *row)
{
    memset(row, 0, sizeof(struct mt_event_row));
}

static void start_events(void)
{
    pthread_mutex_init(&mt.lock, NULL);
    tab_init(&mt.counts, sizeof(struct mt_event_row), event_row_init);
    for (int i = 0; i < mt.nevents && mt.nev < MT_MAX_EVENTS; i++) {
        char *name = mt.event_names[mt.nev], desc[1024];
        int nlen = MT_NAME, dlen = sizeof desc, verbosity, nelem = 0, bind;
        MPI_T_enum en;
        MPI_Info info = MPI_INFO_NULL;
        if (own_T_event_get_info(i, name, &nlen, &verbosity, NULL, NULL, &nelem, &en, &info,
                                  desc, &dlen, &bind) != MPI_SUCCESS)
            continue;
        if (info != MPI_INFO_NULL)
            own_Info_free(&info);
        MPI_T_event_registration *reg = &mt.events[mt.nev];
        if (bind != MPI_T_BIND_NO_OBJECT ||
            own_T_event_handle_alloc(i, NULL, MPI_INFO_NULL, reg) != MPI_SUCCESS)
            continue;
        if (own_T_event_register_callback(*reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL,
                                           (void *)(uintptr_t)mt.nev, event_cb) != MPI_SUCCESS) {
            own_T_event_handle_free(*reg, NULL, NULL);
            continue;
        }
        mt.nev++;
    }
}

void mt_for_each_event(void (*fn)(const char *event, uint64_t site, uint64_t n, void *arg),
                       void *arg)
{
    if (!mt.nev)
        return;
    pthread_mutex_lock(&mt.lock);
    for (uint32_t i = 0; i < mt.counts.n; i++) {
        const struct mt_event_row *r = tab_row(&mt.counts, i);
        if (r->k < (uint64_t)mt.nev)
            fn(mt.event_names[r->k], r->site, r->n, arg);
    }
    pthread_mutex_unlock(&mt.lock);
}
#else
void mt_for_each_event(void (*fn)(const char *event, uint64_t site, uint64_t n, void *arg),
                       void *arg)
{
    (void)fn, (void)arg;
}
#endif

/* ---- life cycle --------------------------------------------------------------------------- */

void mt_start(int rank)
{
    int provided;
    mt.rank = rank;
    sb_init(&mt.note);
    mt.ncvars = mt.npvars = mt.nevents = -1;
    if (!cfg.mpit)
        return;
    if (own_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        if (rank == 0)
            tardy_warn("MPI_T_init_thread failed; control and performance variables are not "
                       "recorded");
        return;
    }
    mt.on = 1;
    own_T_cvar_get_num(&mt.ncvars);
    own_T_pvar_get_num(&mt.npvars);
    write_list(cfg.cvars, ',', "option", "TARDY_CVARS");
    start_pvars();
#if MPI_VERSION >= 4
    if (own_T_event_get_num(&mt.nevents) != MPI_SUCCESS)
        mt.nevents = 0;
    start_events();
#else
    sb_puts(&mt.note, "MPI_T events need an MPI 4.0 library\n");
#endif
    if (mt.npvars == 0)
        sb_puts(&mt.note, "this MPI library has no performance variables\n");
    if (mt.nevents == 0)
        sb_puts(&mt.note, "this MPI library has no MPI_T events\n");
}

/* Into p->cvars: every control variable this process can read (all), or those matching
 * TARDY_CVARS_RECORD and those tardy wrote; their values now and what tardy wrote. */
static void record_cvars(struct profile *p, int all)
{
    struct cvar *c = malloc(sizeof *c);
    p->cvars = calloc((size_t)mt.ncvars + 1, sizeof *p->cvars);
    for (int i = 0; c && p->cvars && i < mt.ncvars; i++) {
        char value[MT_ITEM];
        if (cvar_info(i, c) != MPI_SUCCESS)
            continue;
        int w = find_write(c->name);
        if ((!all && w < 0 && !gl_match(cfg.cvars_record, c->name)) || cvar_open(c) < 0)
            continue;
        if (cvar_text(c, value, sizeof value) == 0) {
            struct prof_cvar *pc = &p->cvars[p->ncvars++];
            pc->name = strdup(c->name);
            pc->value = strdup(value);
            if (w >= 0) {
                pc->written = strdup(mt.writes[w].asked);
                pc->origin = strdup(mt.writes[w].origin);
                pc->before = strdup(mt.writes[w].before);
            }
        }
        cvar_close(c);
    }
    free(c);
}

int mt_cvars_now(struct profile *p)
{
    if (!mt.on)
        return -1;
    record_cvars(p, 1);
    return 0;
}

void mt_describe(struct profile *p)
{
    p->cvars_total = mt.ncvars;
    p->pvars_total = mt.npvars;
    p->events_total = mt.nevents;
    if (mt.note.len)
        p->mpit_note = strdup(mt.note.data);
    if (mt.on)
        record_cvars(p, 0);
}

void mt_stop(void)
{
    if (!mt.on)
        return;
#if MPI_VERSION >= 4
    for (int i = 0; i < mt.nev; i++)
        own_T_event_handle_free(mt.events[i], NULL, NULL);
    mt.nev = 0;
    tab_free(&mt.counts);
#endif
    for (int i = 0; i < mt.npv; i++)
        own_T_pvar_handle_free(mt.session, &mt.pvars[i].handle);
    mt.npv = 0;
    if (mt.session_open)
        own_T_pvar_session_free(&mt.session);
    for (int i = 0; i < mt.nwrites; i++) {
        free(mt.writes[i].name);
        free(mt.writes[i].asked);
        free(mt.writes[i].before);
    }
    mt.nwrites = 0;
    own_T_finalize();
    mt.on = 0;
}
