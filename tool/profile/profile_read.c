/* JSON profile, read with cJSON (written with jansson: profile_json.c). A run store is read
 * whole for `tardy predict`; cJSON parses a profile of 1,000 intervals in less than half of
 * jansson's instructions (41 against 93 million with malloc; jansson makes a hash table of
 * every object), and the reader walks the tree once. */
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_json.h"
#include "tool/base/base.h"

struct reader {
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    int version;   /* of the file: 1 or 2 */
    char **paths;  /* its call paths' frames by id, "function file:line;..." */
    size_t npaths;
};

static void bad(struct reader *rd, const char *what)
{
    if (!rd->failed)
        snprintf(rd->err, rd->errlen, "%s: %s", rd->path, what);
    rd->failed = 1;
}

/* ---- the tree: absent members and values of another type read as jansson's do ---------- */

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* The first element of an array, the first member of an object; NULL for anything else. */
static const cJSON *elements(const cJSON *a)
{
    return cJSON_IsArray(a) ? a->child : NULL;
}
static const cJSON *members(const cJSON *o)
{
    return cJSON_IsObject(o) ? o->child : NULL;
}

/* How many elements the array a has (0 for anything else). */
static size_t length(const cJSON *a)
{
    return cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;
}

/* Up to n elements of the array a into e; returns how many it has (n + 1: more than n). */
static int items(const cJSON *a, const cJSON **e, int n)
{
    int k = 0;
    for (const cJSON *v = elements(a); v && k <= n; v = v->next, k++)
        if (k < n)
            e[k] = v;
    for (int i = k; i < n; i++)
        e[i] = NULL;
    return k;
}

static double num(const cJSON *v)
{
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A whole number (JSON does not tell 2 from 2.0 here; jansson's reader did). */
static int is_integer(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
           fabs(v->valuedouble) < 9.2e18;
}
static long long integer(const cJSON *v)
{
    return is_integer(v) ? (long long)v->valuedouble : 0;
}

static double num_of(const cJSON *o, const char *key)
{
    return num(get(o, key));
}

static const char *text_of(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(get(o, key));
}

static char *str_of(const cJSON *o, const char *key)
{
    const char *s = text_of(o, key);
    return strdup(s ? s : "");
}

/* ---- statistics, histograms, counters ---------------------------------------------------- */

/* A statistic: [sum, min, min_rank, max, max_rank, ranks] (version 2) or the object
 * {"sum", "mean", "min", "max", "min_rank", "max_rank", "ranks"} (version 1). */
static void read_stat(struct reader *rd, const cJSON *o, struct red_stat *s)
{
    const cJSON *e[6];
    if (items(o, e, 6) == 6) {
        s->sum = num(e[0]);
        s->min = num(e[1]);
        s->min_rank = (int32_t)integer(e[2]);
        s->max = num(e[3]);
        s->max_rank = (int32_t)integer(e[4]);
        s->ranks = (uint32_t)integer(e[5]);
        return;
    }
    if (!cJSON_IsObject(o)) {
        bad(rd, "a statistic is neither [sum, min, min_rank, max, max_rank, ranks] nor an object");
        return;
    }
    s->sum = num_of(o, "sum");
    s->min = num_of(o, "min");
    s->max = num_of(o, "max");
    s->min_rank = (int32_t)integer(get(o, "min_rank"));
    s->max_rank = (int32_t)integer(get(o, "max_rank"));
    s->ranks = (uint32_t)integer(get(o, "ranks"));
}

/* One entry [bin, ...] of a sparse histogram of bins bins, its n items into e: the bin, or -1
 * when it is out of range. */
static long long bin_of(const cJSON *entry, const cJSON **e, int n, int bins)
{
    items(entry, e, n);
    long long b = integer(e[0]);
    return b >= 0 && b < bins ? b : -1;
}

/* A histogram's sparse bins; where version 2 leaves it out, the one the row implies. */
static void read_hist(struct reader *rd, const cJSON *a, struct hist *h, double n, double sum,
                      double max)
{
    memset(h, 0, sizeof *h);
    if (!a) {
        if (rd->version >= 2)
            pj_hist_implied(h, n, sum, max);
        return;
    }
    if (!cJSON_IsArray(a)) {
        bad(rd, "a histogram is not an array");
        return;
    }
    for (const cJSON *bin = elements(a); bin; bin = bin->next) {
        const cJSON *e[3];
        long long b = bin_of(bin, e, 3, HIST_BINS);
        if (b < 0) {
            bad(rd, "a histogram bin is out of range");
            return;
        }
        h->count[b] = (uint64_t)integer(e[1]);
        h->sum[b] = num(e[2]);
    }
}

/* One counter: {"value": statistic, "ranks_histogram"} (version 2; the histogram left out
 * when every rank is in the bin of the largest total) or the statistic's object with
 * "ranks_histogram" (version 1). */
static void read_counter(struct reader *rd, const cJSON *c, struct red_stat *s, uint32_t *bins)
{
    const cJSON *value = get(c, "value"), *hist = get(c, "ranks_histogram");
    read_stat(rd, value ? value : c, s);
    if (!hist && rd->version >= 2 && s->ranks)
        bins[ctr_rank_bin(s->max)] = s->ranks;
    for (const cJSON *bin = elements(hist); bin; bin = bin->next) {
        const cJSON *e[2];
        long long b = bin_of(bin, e, 2, CTR_RANK_BINS);
        if (b < 0) {
            bad(rd, "a counter histogram bin is out of range");
            return;
        }
        bins[b] = (uint32_t)integer(e[1]);
    }
}

static void read_counters(struct reader *rd, const struct profile *p, const cJSON *o,
                          struct prof_nums *n)
{
    for (int k = 0; o && k < p->ncounters; k++) {
        const cJSON *c = get(o, p->counters[k]);
        if (c)
            read_counter(rd, c, &n->ctr[k], n->ctr_ranks[k]);
    }
}

static void read_counter_meta(struct profile *p, const cJSON *o)
{
    for (const cJSON *v = elements(get(o, "events")); v; v = v->next)
        if (p->ncounters < PROF_COUNTERS && cJSON_IsString(v))
            p->counters[p->ncounters++] = strdup(v->valuestring);
    p->counter_multiplex = cJSON_IsTrue(get(o, "multiplex"));
    const char *note = text_of(o, "note");
    if (note)
        p->counter_note = strdup(note);
}

/* ---- call paths -------------------------------------------------------------------------- */

/* Version 1's frames: [{"function", "file", "line"}]. */
static void frames_v1(const cJSON *frames, struct strbuf *out)
{
    int i = 0;
    for (const cJSON *fr = elements(frames); fr; fr = fr->next, i++) {
        const char *f = text_of(fr, "function"), *file = text_of(fr, "file");
        sb_printf(out, "%s%s %s:%d", i ? ";" : "", f ? f : "??", file ? file : "??",
                  (int)integer(get(fr, "line")));
    }
}

/* An array's elements by index (the tables of version 2 are looked up by id). */
static const cJSON **indexed(const cJSON *a, size_t *n)
{
    *n = length(a);
    const cJSON **at = malloc((*n + 1) * sizeof *at);
    size_t i = 0;
    for (const cJSON *v = elements(a); at && v; v = v->next)
        at[i++] = v;
    return at;
}

/* Version 2's frame ids into the frames and files tables. */
static int frames_v2(const cJSON *ids, const cJSON **frames, size_t nframes,
                     const cJSON **files, size_t nfiles, struct strbuf *out)
{
    int i = 0;
    for (const cJSON *id = elements(ids); id; id = id->next, i++) {
        long long k = integer(id);
        const cJSON *e[3] = {NULL, NULL, NULL};
        if (is_integer(id) && k >= 0 && (size_t)k < nframes)
            items(frames[k], e, 3);
        const char *f = cJSON_GetStringValue(e[0]);
        long long file = integer(e[1]);
        if (!f || !is_integer(e[1]) || file < 0 || (size_t)file >= nfiles ||
            !cJSON_IsString(files[file]) || !is_integer(e[2]))
            return -1;
        sb_printf(out, "%s%s %s:%d", i ? ";" : "", f, files[file]->valuestring,
                  (int)integer(e[2]));
    }
    return 0;
}

/* The document's call paths, version 2's tables or version 1's objects, into rd->paths.
 * Returns 0, or -1 with the problem in *why. */
static int read_paths(struct reader *rd, const cJSON *doc, const char **why)
{
    const cJSON *paths = get(doc, "callpaths");
    if (!cJSON_IsArray(paths)) {
        *why = "no \"callpaths\" array";
        return -1;
    }
    size_t nframes, nfiles;
    const cJSON **frames = indexed(get(doc, "frames"), &nframes);
    const cJSON **files = indexed(get(doc, "files"), &nfiles);
    rd->paths = calloc(length(paths) + 1, sizeof *rd->paths);
    *why = frames && files && rd->paths ? NULL : "out of memory";
    for (const cJSON *path = elements(paths); !*why && path; path = path->next) {
        struct strbuf s;
        sb_init(&s);
        sb_add(&s, "", 0);
        int broken = 0;
        if (cJSON_IsArray(path))
            broken = frames_v2(path, frames, nframes, files, nfiles, &s);
        else
            frames_v1(get(path, "frames"), &s);
        if (broken || s.failed) {
            sb_free(&s);
            *why = broken ? "a call path names a frame or file that is not in the tables"
                          : "out of memory";
            break;
        }
        rd->paths[rd->npaths++] = s.data;
    }
    free(frames);
    free(files);
    return *why ? -1 : 0;
}

/* Rebuild the call-site string "function@frames" from {"function","callpath"}. */
static int site_of(struct reader *rd, const cJSON *site, struct strbuf *out)
{
    const char *fn = text_of(site, "function");
    const cJSON *id = get(site, "callpath");
    long long k = integer(id);
    if (!fn || !is_integer(id) || k < 0 || (size_t)k >= rd->npaths) {
        bad(rd, "a call site has no function or an unknown callpath id");
        return -1;
    }
    out->len = 0;
    sb_puts(out, fn);
    sb_add(out, "@", 1);
    sb_puts(out, rd->paths[k]);
    return 0;
}

/* ---- rows -------------------------------------------------------------------------------- */

/* "sent" or "recv" of an MPI row whose count is read; where version 2 leaves it out, the
 * zero the row implies. */
static void read_bytes(struct reader *rd, const cJSON *o, struct red_stat *s,
                       const struct red_stat *count)
{
    if (!o && rd->version >= 2)
        pj_zero_implied(s, count);
    else
        read_stat(rd, o, s);
}

/* "histogram" and "ranks_histogram" of a row whose count, time and call_max are read. */
static void read_rows_hists(struct reader *rd, const cJSON *o, struct prof_nums *n)
{
    read_hist(rd, get(o, "histogram"), &n->calls, n->count.sum, n->time.sum, n->call_max);
    read_hist(rd, get(o, "ranks_histogram"), &n->ranks, n->time.ranks, n->time.sum,
              n->time.max);
}

static void read_rows(struct reader *rd, struct profile *p, const cJSON *root, int kind)
{
    const cJSON *rows = get(root, kind == ROW_MPI ? "mpi" : "intervals");
    if (!cJSON_IsArray(rows)) {
        bad(rd, kind == ROW_MPI ? "no \"mpi\" array" : "no \"intervals\" array");
        return;
    }
    struct strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    for (const cJSON *o = elements(rows); o; o = o->next) {
        int ok = kind == ROW_MPI ? site_of(rd, o, &a)
                                 : (site_of(rd, get(o, "from"), &a) ||
                                    site_of(rd, get(o, "to"), &b));
        if (ok != 0)
            break;
        struct prof_row *r = rowset_get(&p->rows, kind, a.data, kind == ROW_MPI ? NULL : b.data);
        if (!r) {
            bad(rd, "out of memory");
            break;
        }
        read_stat(rd, get(o, "count"), &r->n.count);
        read_stat(rd, get(o, "time"), &r->n.time);
        if (kind == ROW_MPI) {
            read_bytes(rd, get(o, "sent"), &r->n.sent, &r->n.count);
            read_bytes(rd, get(o, "recv"), &r->n.recv, &r->n.count);
            const cJSON *mem = get(o, "memory");
            if (mem) {
                read_stat(rd, get(mem, "allocs"), &r->n.mem_allocs);
                read_stat(rd, get(mem, "alloc_bytes"), &r->n.mem_alloc);
                read_stat(rd, get(mem, "freed_bytes"), &r->n.mem_freed);
                read_stat(rd, get(mem, "live_bytes"), &r->n.mem_live);
            }
        }
        read_counters(rd, p, get(o, "counters"), &r->n);
        r->n.sumsq = num_of(o, "sumsq");
        r->n.call_min = num_of(o, "call_min");
        r->n.call_max = num_of(o, "call_max");
        read_rows_hists(rd, o, &r->n);
    }
    sb_free(&a);
    sb_free(&b);
}

static void read_mpit(struct reader *rd, struct profile *p, const cJSON *root)
{
    const cJSON *o = get(root, "mpi_t");
    if (!o)
        return;
    p->cvars_total = (int)integer(get(o, "cvars_total"));
    p->pvars_total = (int)integer(get(o, "pvars_total"));
    p->events_total = (int)integer(get(o, "events_total"));
    const char *note = text_of(o, "note");
    if (note)
        p->mpit_note = strdup(note);
    const cJSON *cvars = get(o, "cvars");
    p->cvars = calloc(length(cvars) + 1, sizeof *p->cvars);
    for (const cJSON *v = elements(cvars); p->cvars && v; v = v->next) {
        struct prof_cvar *c = &p->cvars[p->ncvars++];
        c->name = str_of(v, "name");
        c->value = str_of(v, "value");
        if (get(v, "written")) {
            c->written = str_of(v, "written");
            c->origin = str_of(v, "origin");
            c->before = str_of(v, "before");
        }
    }
    for (const cJSON *v = elements(get(o, "pvars")); v; v = v->next) {
        const char *name = text_of(v, "name"), *cls = text_of(v, "class");
        struct prof_row *r = name ? rowset_get(&p->rows, ROW_PVAR, name, cls ? cls : "") : NULL;
        if (r)
            read_stat(rd, get(v, "value"), &r->n.time);
    }
    struct strbuf site;
    sb_init(&site);
    for (const cJSON *v = elements(get(o, "events")); v; v = v->next) {
        const char *name = text_of(v, "event");
        if (!name || site_of(rd, v, &site) != 0)
            break;
        struct prof_row *r = rowset_get(&p->rows, ROW_EVENT, name, site.data);
        if (r)
            read_stat(rd, get(v, "count"), &r->n.count);
    }
    sb_free(&site);
}

/* Rebuild a region string (see region_json in profile_json.c). */
static int region_of(struct reader *rd, const cJSON *o, struct strbuf *out, struct strbuf *tmp)
{
    out->len = 0;
    const cJSON *unknown = get(o, "unknown"), *mpi = get(o, "mpi");
    if (unknown) {
        const char *u = cJSON_GetStringValue(unknown);
        sb_printf(out, "?%s", u && strcmp(u, "no hotspot region") ? u : "");
        return 0;
    }
    if (mpi)
        return site_of(rd, mpi, out);
    if (site_of(rd, get(o, "from"), out) || site_of(rd, get(o, "to"), tmp))
        return -1;
    sb_printf(out, "\t%s", tmp->data);
    return 0;
}

/* "waits" and "wait_causes" (absent in profiles without wait states). */
static void read_waits(struct reader *rd, struct profile *p, const cJSON *root)
{
    struct strbuf a, b, t;
    sb_init(&a);
    sb_init(&b);
    sb_init(&t);
    for (const cJSON *o = elements(get(root, "waits")); o; o = o->next) {
        const char *pattern = text_of(o, "pattern");
        struct prof_row *r;
        if (!pattern || site_of(rd, o, &a) ||
            !(r = rowset_get(&p->rows, ROW_WAIT, pattern, a.data)))
            break;
        read_stat(rd, get(o, "count"), &r->n.count);
        read_stat(rd, get(o, "time"), &r->n.time);
        read_stat(rd, get(o, "late"), &r->n.late);
        r->n.call_max = num_of(o, "call_max");
        read_rows_hists(rd, o, &r->n);
    }
    for (const cJSON *o = elements(get(root, "wait_causes")); o; o = o->next) {
        const char *pattern = text_of(o, "pattern");
        struct prof_row *r;
        if (!pattern || site_of(rd, get(o, "site"), &t))
            break;
        a.len = 0;
        sb_printf(&a, "%s\n%s", pattern, t.data);
        if (region_of(rd, get(o, "region"), &b, &t) ||
            !(r = rowset_get(&p->rows, ROW_CAUSE, a.data, b.data)))
            break;
        read_stat(rd, get(o, "cost"), &r->n.time);
        read_stat(rd, get(o, "count"), &r->n.count);
    }
    sb_free(&a);
    sb_free(&b);
    sb_free(&t);
}

/* ---- the run, its stops, predictions, per-rank metrics ---------------------------------- */

static void read_run(struct reader *rd, struct profile *p, const cJSON *run)
{
    if (!cJSON_IsObject(run)) {
        bad(rd, "no \"run\" object");
        return;
    }
    p->program = str_of(run, "program");
    const cJSON *args = get(run, "args");
    p->argc = (int)length(args);
    p->argv = calloc((size_t)p->argc + 1, sizeof *p->argv);
    int i = 0;
    for (const cJSON *v = elements(args); p->argv && v; v = v->next) {
        const char *s = cJSON_GetStringValue(v);
        p->argv[i++] = strdup(s ? s : "");
    }
    p->ranks = (int)integer(get(run, "ranks"));
    if (p->ranks <= 0)
        bad(rd, "run.ranks is missing or not positive");
    p->hosts = (int)integer(get(run, "hosts"));
    p->thread_level = (int)integer(get(run, "thread_level"));
    p->depth = (int)integer(get(run, "callpath_depth"));
    p->host = str_of(run, "host");
    p->mpi_library = str_of(run, "mpi_library");
    p->mpi_version = str_of(run, "mpi_version");
    p->tardy_version = str_of(run, "tardy_version");
    p->clock = str_of(run, "clock");
    p->start_time = str_of(run, "start_time");
    p->interface = str_of(run, "interface");
    const char *run_id = text_of(run, "run_id");
    p->run_id = run_id ? strdup(run_id) : NULL; /* profiles before partial ones have none */
    for (const cJSON *v = members(get(run, "params")); v; v = v->next) {
        struct prof_param *np = realloc(p->params, (size_t)(p->nparams + 1) * sizeof *np);
        if (!np)
            return;
        p->params = np;
        char number[64];
        const char *value = cJSON_GetStringValue(v);
        if (cJSON_IsNumber(v)) {
            snprintf(number, sizeof number, "%.17g", v->valuedouble);
            value = number;
        }
        np[p->nparams].key = strdup(v->string);
        np[p->nparams].value = strdup(value ? value : "");
        p->nparams++;
    }
}

static void read_partial(struct reader *rd, struct profile *p, const cJSON *o)
{
    if (!o)
        return;
    const cJSON *stops = get(o, "stopped");
    if (!cJSON_IsArray(stops)) {
        bad(rd, "\"partial\" is not an object with a \"stopped\" array");
        return;
    }
    p->partial = 1;
    for (const cJSON *s = elements(stops); s; s = s->next) {
        const cJSON *rank = get(s, "rank");
        const char *reason = text_of(s, "reason");
        if (!is_integer(rank) || integer(rank) < 0 || integer(rank) >= p->ranks || !reason) {
            bad(rd, "partial.stopped has an entry without a rank in 0..run.ranks-1 or a reason");
            return;
        }
        struct prof_stop st = {
            .rank = (int)integer(rank),
            .reason = (char *)reason,
            .code = (int)integer(get(s, "code")),
            .signal = (char *)text_of(s, "signal"),
            .where = (char *)text_of(s, "where"),
            .time = (char *)text_of(s, "time"),
            .wall = num_of(s, "wall"),
        };
        if (profile_add_stop(p, &st) < 0) {
            bad(rd, "out of memory");
            return;
        }
    }
    profile_sort_stops(p);
}

static void read_predictions(struct profile *p, const cJSON *root)
{
    const cJSON *arr = get(root, "predictions");
    size_t n = length(arr);
    const char *note = text_of(root, "prediction_note");
    if (note)
        p->prediction_note = strdup(note);
    p->predictions = n ? calloc(n, sizeof *p->predictions) : NULL;
    for (const cJSON *o = elements(arr); p->predictions && o; o = o->next) {
        struct prof_prediction *q = &p->predictions[p->npredictions++];
        q->target = str_of(o, "target");
        q->metric = str_of(o, "metric");
        q->family = str_of(o, "family");
        q->model = str_of(o, "model");
        q->value = num_of(o, "value");
        const cJSON *fe = get(o, "fit_error_pct"), *un = get(o, "uncertainty_pct");
        q->fit_error = fe ? num(fe) : NAN;
        q->uncertainty = un ? num(un) : NAN;
        const cJSON *lo = get(o, "low"), *hi = get(o, "high"), *cov = get(o, "coverage");
        q->low = lo && hi && cov ? num(lo) : NAN;
        q->high = lo && hi && cov ? num(hi) : NAN;
        q->coverage = lo && hi && cov ? num(cov) : NAN;
        q->extrapolated = cJSON_IsTrue(get(o, "extrapolated"));
    }
}

static void read_ranks(struct reader *rd, struct profile *p, const cJSON *ranks)
{
    if (!cJSON_IsObject(ranks)) {
        bad(rd, "no \"ranks\" object");
        return;
    }
    for (const cJSON *v = members(ranks); v; v = v->next) {
        if (!strcmp(v->string, "compute_histogram")) {
            p->rank_hist_lo = num_of(v, "lo");
            p->rank_hist_hi = num_of(v, "hi");
            const cJSON *count = elements(get(v, "counts"));
            for (int b = 0; b < RANK_HIST_BINS; b++, count = count ? count->next : NULL)
                p->rank_hist[b] = (uint64_t)integer(count);
            continue;
        }
        struct prof_row *r = rowset_get(&p->rows, ROW_RANK, v->string, NULL);
        if (r)
            read_stat(rd, v, &r->n.time);
    }
}

/* ---- the file ---------------------------------------------------------------------------- */

/* Where text (len bytes) stops being UTF-8 (JSON text is; cJSON takes any bytes, and
 * jansson, which writes what is read here, refuses strings that are not), or NULL. */
static const char *not_utf8(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text, *end = s + len;
    while (s < end) {
        uint64_t eight;
        if (end - s >= 8 && (memcpy(&eight, s, 8), !(eight & 0x8080808080808080u))) {
            s += 8; /* ASCII, as profiles almost are: eight bytes at a time */
            continue;
        }
        unsigned c = *s;
        int more = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
                 : c >= 0xf0 && c <= 0xf4                  ? 3 : -1;
        if (more < 0 || end - s <= more)
            return (const char *)s;
        unsigned cp = c & (0x3f >> more);
        for (int k = 1; k <= more; k++) {
            if ((s[k] & 0xc0) != 0x80)
                return (const char *)s;
            cp = cp << 6 | (s[k] & 0x3f);
        }
        /* overlong, surrogates, beyond U+10FFFF */
        if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (more == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return (const char *)s;
        s += 1 + more;
    }
    return NULL;
}

/* The text of path parsed, or NULL with the problem in err. */
static cJSON *load_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct strbuf text;
    sb_init(&text);
    sb_add(&text, "", 0);
    int rc = sb_read(&text, f);
    fclose(f);
    if (rc < 0 || text.failed) {
        snprintf(err, errlen, "%s: cannot read: %s", path, text.failed ? "out of memory"
                                                                        : strerror(errno));
        sb_free(&text);
        return NULL;
    }
    const char *not_text = not_utf8(text.data, text.len), *end = not_text, *why = "not JSON";
    cJSON *root = NULL;
    if (!not_text) {
        root = cJSON_ParseWithLengthOpts(text.data, text.len, &end, 0);
        end += root ? strspn(end, " \t\r\n") : 0;
        if (root && end < text.data + text.len) {
            cJSON_Delete(root);
            root = NULL;
            why = "text after the JSON value";
        }
    }
    if (!root) {
        int line = 1;
        const char *start = text.data; /* of the line */
        for (const char *c = text.data; c < end; c++)
            if (*c == '\n')
                line++, start = c + 1;
        int column = (int)(end - start) + 1;
        if (not_text)
            snprintf(err, errlen, "%s: not a JSON profile (line %d: byte 0x%02x at column %d is "
                     "not UTF-8)", path, line, (unsigned char)*end, column);
        else if (end + strspn(end, " \t\r\n") >= text.data + text.len)
            snprintf(err, errlen, "%s: not a JSON profile (line %d: the text ends early)", path,
                     line);
        else
            snprintf(err, errlen, "%s: not a JSON profile (line %d: %s from column %d, '%.16s')",
                     path, line, why, column, end);
    }
    sb_free(&text);
    return root;
}

int profile_read(struct profile *p, const char *path, char *err, size_t errlen)
{
    struct reader rd = {.path = path, .err = err, .errlen = errlen};
    cJSON *root = load_file(path, err, errlen);
    if (!root)
        return -1;
    const char *schema = text_of(root, "schema"), *why = NULL;
    long long version = integer(get(root, "version"));
    rd.version = (int)version;
    /* both versions: a run store keeps the profiles of earlier tardy releases */
    if (!schema || strcmp(schema, PROFILE_SCHEMA))
        bad(&rd, "not a tardy profile (no \"schema\": \"" PROFILE_SCHEMA "\")");
    else if (version < 1 || version > PROFILE_VERSION)
        bad(&rd, "profile version not supported by this tardy");
    else if (read_paths(&rd, root, &why) < 0)
        bad(&rd, why);
    if (!rd.failed)
        read_run(&rd, p, get(root, "run"));
    if (!rd.failed)
        read_partial(&rd, p, get(root, "partial"));
    if (!rd.failed)
        read_counter_meta(p, get(root, "counters"));
    if (!rd.failed)
        read_rows(&rd, p, root, ROW_MPI);
    if (!rd.failed)
        read_rows(&rd, p, root, ROW_INTERVAL);
    if (!rd.failed)
        read_ranks(&rd, p, get(root, "ranks"));
    if (!rd.failed)
        read_waits(&rd, p, root);
    if (!rd.failed)
        read_predictions(p, root);
    if (!rd.failed)
        read_mpit(&rd, p, root);
    for (size_t i = 0; i < rd.npaths; i++)
        free(rd.paths[i]);
    free(rd.paths);
    cJSON_Delete(root);
    if (!rd.failed) {
        free(p->path);
        p->path = strdup(path);
    }
    return rd.failed ? -1 : 0;
}
