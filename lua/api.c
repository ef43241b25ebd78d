/* The `tardy` module: runs, metrics, families, policies. */
#include "api.h"

#include <lauxlib.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_META "tardy.run"
#define FAMILIES "tardy.families"
#define POLICIES "tardy.policies"
#define INIT_HOOK "tardy.on_init"
#define RUN_LIST "tardy.run_list"

struct run_ref {
    const struct profile *p;
    int current;
};

static const struct profile *check_run(lua_State *L, int idx)
{
    return ((struct run_ref *)luaL_checkudata(L, idx, RUN_META))->p;
}

/* Push a parameter value: a number when it reads as one, else the string. */
static void push_value(lua_State *L, const char *v)
{
    double x;
    if (decimal_number(v, &x))
        lua_pushnumber(L, x);
    else
        lua_pushstring(L, v);
}

/* run.params: {p = ranks, name = value, ...}, a fresh table; without p where the input gave
 * no rank count. */
static void push_params(lua_State *L, const struct profile *p)
{
    lua_createtable(L, 0, p->nparams + 1);
    if (!p->ranks_unknown) {
        lua_pushinteger(L, p->ranks);
        lua_setfield(L, -2, "p");
    }
    for (int i = 0; i < p->nparams; i++) {
        push_value(L, p->params[i].value);
        lua_setfield(L, -2, p->params[i].key);
    }
}

/* run.cvars: {NAME = value, ...} of the control variables the profile recorded, a fresh
 * table. */
static void push_cvars(lua_State *L, const struct profile *p)
{
    lua_createtable(L, 0, p->ncvars);
    for (int i = 0; i < p->ncvars; i++) {
        push_value(L, p->cvars[i].value);
        lua_setfield(L, -2, p->cvars[i].name);
    }
}

/* The per-rank statistics of a row, by the name scripts see. Every statistic some rank
 * recorded appears in the metric table, whatever the row's kind: a module that adds a
 * red_stat to struct prof_nums adds one line here and its metric is predicted like the rest. */
static const struct {
    const char *name;
    size_t off;
} stats[] = {
    {"count", offsetof(struct prof_nums, count)},
    {"time", offsetof(struct prof_nums, time)},
    {"sent", offsetof(struct prof_nums, sent)},
    {"recv", offsetof(struct prof_nums, recv)},
    {"memory_allocs", offsetof(struct prof_nums, mem_allocs)},
    {"memory_allocated", offsetof(struct prof_nums, mem_alloc)},
    {"memory_freed", offsetof(struct prof_nums, mem_freed)},
    {"memory_live", offsetof(struct prof_nums, mem_live)},
    {"late", offsetof(struct prof_nums, late)},
};

/* Row kinds by name; a kind missing here is seen as "kind<N>". */
static const char *kind_name(int kind, char *buf, size_t len)
{
    switch (kind) {
    case ROW_MPI: return "mpi";
    case ROW_INTERVAL: return "interval";
    case ROW_RANK: return "rank";
    case ROW_PVAR: return "pvar";
    case ROW_EVENT: return "event";
    case ROW_WAIT: return "wait";
    case ROW_CAUSE: return "cause";
    }
    snprintf(buf, len, "kind%d", kind);
    return buf;
}

static void set_number(lua_State *L, const char *key, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, key);
}

/* {sum, mean, min, max, min_rank, max_rank, ranks} of a statistic; mean and min over all
 * ranks of the run (ranks without the value count as zero). */
static void push_stat(lua_State *L, const struct red_stat *s, int ranks)
{
    lua_createtable(L, 0, 9);
    set_number(L, "sum", s->sum);
    set_number(L, "mean", ranks > 0 ? s->sum / ranks : 0);
    set_number(L, "min", s->ranks == (uint32_t)ranks ? s->min : 0);
    set_number(L, "max", s->max);
    lua_pushinteger(L, s->min_rank);
    lua_setfield(L, -2, "min_rank");
    lua_pushinteger(L, s->max_rank);
    lua_setfield(L, -2, "max_rank");
    lua_pushinteger(L, s->ranks);
    lua_setfield(L, -2, "ranks");
}

/* The per-rank totals of a row as its histogram keeps them: `zeros` ranks without the row
 * first, then the bins' ranks at the bins' values, the smallest and the largest exact. */
struct ranked {
    uint64_t zeros, total;
    double lo, hi;
    int bins;
    const uint64_t *count;
    double value[HIST_BINS > RANK_HIST_BINS ? HIST_BINS : RANK_HIST_BINS];
};

/* The k-th smallest (from 0) of the totals. */
static double order_stat(const struct ranked *r, uint64_t k)
{
    if (k < r->zeros)
        return 0;
    if (k == r->zeros)
        return r->lo;
    if (k + 1 >= r->total)
        return r->hi;
    uint64_t seen = r->zeros;
    for (int b = 0; b < r->bins; b++) {
        seen += r->count[b];
        if (seen > k) /* a bin's value can pass an extreme by rounding (bin sums in ns) */
            return fmin(fmax(r->value[b], r->lo), r->hi);
    }
    return r->hi;
}

/* Quantile q of the totals, interpolated between the two around q·(total − 1) (Hyndman and
 * Fan's definition 7, R's and NumPy's default): the median of two ranks is their mean, where
 * the lower one stood for it and made the median / mean spread of 2-rank runs a trend. */
static double ranked_quantile(const struct ranked *r, double q)
{
    if (!r->total)
        return NAN;
    double h = q * (double)(r->total - 1);
    uint64_t k = (uint64_t)h;
    double a = order_stat(r, k);
    return h > (double)k ? a + (h - (double)k) * (order_stat(r, k + 1) - a) : a;
}

/* Quantile q of the per-rank totals from the log histogram (bin means, ranks without the row
 * count as zero); NaN for a row that keeps none (a root cause's). */
static double rank_quantile(const struct hist *h, const struct red_stat *time, int ranks,
                            double q)
{
    struct ranked r = {.lo = time->min, .hi = time->max, .bins = HIST_BINS, .count = h->count};
    uint64_t kept = 0;
    for (int b = 0; b < HIST_BINS; b++) {
        kept += h->count[b];
        r.value[b] = h->count[b] ? h->sum[b] / (double)h->count[b] : 0;
    }
    if (!kept && time->ranks)
        return NAN;
    r.total = ranks > 0 ? (uint64_t)ranks : 0;
    r.zeros = time->ranks < r.total ? r.total - time->ranks : 0;
    return ranked_quantile(&r, q);
}

/* Quantile q of per-rank compute from the profile's linear histogram (bin middles). */
static double compute_quantile(const struct profile *p, double q)
{
    struct ranked r = {.lo = p->rank_hist_lo, .hi = p->rank_hist_hi, .bins = RANK_HIST_BINS,
                       .count = p->rank_hist};
    double width = (p->rank_hist_hi - p->rank_hist_lo) / RANK_HIST_BINS;
    for (int b = 0; b < RANK_HIST_BINS; b++) {
        r.total += p->rank_hist[b];
        r.value[b] = p->rank_hist_lo + (b + 0.5) * width;
    }
    return ranked_quantile(&r, q);
}

/* The quantiles of per-rank totals a row keeps (time of MPI and interval rows from their
 * log histogram, compute from the profile's linear one) as fields p50, p90 of the stat table
 * at the top of the stack. */
static void push_quantiles(lua_State *L, const struct profile *p, const struct prof_row *r)
{
    static const double qs[] = {0.5, 0.9};
    static const char *const names[] = {"p50", "p90"};
    for (int i = 0; i < 2; i++) {
        double v = NAN;
        if (r->kind == ROW_RANK && !strcmp(r->a, "compute"))
            v = compute_quantile(p, qs[i]);
        else if (r->kind != ROW_RANK)
            v = rank_quantile(&r->n.ranks, &r->n.time, p->ranks, qs[i]);
        if (isfinite(v))
            set_number(L, names[i], v);
    }
}

/* The counters of the run (TARDY_PAPI) a row has: each under its event name, and their
 * names in metric.counters. */
static void push_counters(lua_State *L, const struct profile *p, const struct prof_row *r)
{
    int n = 0;
    lua_newtable(L);
    for (int i = 0; i < p->ncounters && i < PROF_COUNTERS; i++) {
        if (!p->counters[i] || !r->n.ctr[i].ranks)
            continue;
        lua_pushstring(L, p->counters[i]);
        lua_rawseti(L, -2, ++n);
        push_stat(L, &r->n.ctr[i], p->ranks);
        lua_setfield(L, -3, p->counters[i]);
    }
    if (n)
        lua_setfield(L, -2, "counters");
    else
        lua_pop(L, 1);
}

/* A metric table: {kind, key, a, b, <stat name> = stat table, ...}; rank rows also have
 * value = their time stat. */
static void push_metric(lua_State *L, const struct profile *p, const struct prof_row *r)
{
    char buf[32];
    lua_createtable(L, 0, 12);
    lua_pushstring(L, kind_name(r->kind, buf, sizeof buf));
    lua_setfield(L, -2, "kind");
    if (r->b)
        lua_pushfstring(L, "%s -> %s", r->a, r->b);
    else
        lua_pushstring(L, r->a);
    lua_setfield(L, -2, "key");
    lua_pushstring(L, r->a);
    lua_setfield(L, -2, "a");
    if (r->b) {
        lua_pushstring(L, r->b);
        lua_setfield(L, -2, "b");
    }
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
        const struct red_stat *s = (const void *)((const char *)&r->n + stats[i].off);
        if (!s->ranks)
            continue;
        push_stat(L, s, p->ranks);
        if (s == &r->n.time)
            push_quantiles(L, p, r);
        if (r->kind == ROW_RANK && s == &r->n.time) {
            lua_pushvalue(L, -1);
            lua_setfield(L, -3, "value");
        }
        lua_setfield(L, -2, stats[i].name);
    }
    push_counters(L, p, r);
}

/* run:metrics() → array of fresh metric tables. */
static int run_metrics(lua_State *L)
{
    const struct profile *p = check_run(L, 1);
    lua_createtable(L, (int)p->rows.n, 0);
    for (size_t i = 0; i < p->rows.n; i++) {
        push_metric(L, p, &p->rows.rows[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* run:param(name) → number, string or nil ("p" is the number of ranks, nil where the input
 * gave none). */
static int run_param(lua_State *L)
{
    const struct profile *p = check_run(L, 1);
    const char *name = luaL_checkstring(L, 2);
    if (!strcmp(name, "p") && !p->ranks_unknown) {
        lua_pushinteger(L, p->ranks);
        return 1;
    }
    for (int i = 0; i < p->nparams; i++)
        if (!strcmp(p->params[i].key, name)) {
            push_value(L, p->params[i].value);
            return 1;
        }
    lua_pushnil(L);
    return 1;
}

static int run_index(lua_State *L)
{
    struct run_ref *ref = luaL_checkudata(L, 1, RUN_META);
    const char *k = luaL_checkstring(L, 2);
    const struct profile *p = ref->p;
    if (!strcmp(k, "p"))
        lua_pushinteger(L, p->ranks);
    else if (!strcmp(k, "program"))
        lua_pushstring(L, p->program ? p->program : "");
    else if (!strcmp(k, "path"))
        lua_pushstring(L, p->path ? p->path : "");
    else if (!strcmp(k, "start"))
        lua_pushstring(L, p->start_time ? p->start_time : "");
    else if (!strcmp(k, "current"))
        lua_pushboolean(L, ref->current);
    else if (!strcmp(k, "params"))
        push_params(L, p);
    else if (!strcmp(k, "cvars"))
        push_cvars(L, p);
    else if (!strcmp(k, "metrics"))
        lua_pushcfunction(L, run_metrics);
    else if (!strcmp(k, "param"))
        lua_pushcfunction(L, run_param);
    else
        return luaL_error(L, "a run has no field '%s'", k);
    return 1;
}

static int read_only(lua_State *L)
{
    return luaL_error(L, "runs are read-only");
}

static int run_tostring(lua_State *L)
{
    const struct profile *p = check_run(L, 1);
    lua_pushfstring(L, "run(%s, p=%d)", p->program ? p->program : "?", p->ranks);
    return 1;
}

/* tardy.runs() → a fresh array of the runs, oldest first. */
static int api_runs(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, RUN_LIST);
    int list = lua_gettop(L);
    lua_Integer n = luaL_len(L, list);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        lua_rawseti(L, -2, i);
    }
    lua_remove(L, list);
    return 1;
}

void api_set_runs(lua_State *L, const struct profile *runs, int nruns, int current_last)
{
    lua_createtable(L, nruns, 0);
    for (int i = 0; i < nruns; i++) {
        struct run_ref *ref = lua_newuserdatauv(L, sizeof *ref, 0);
        ref->p = &runs[i];
        ref->current = current_last && i == nruns - 1;
        luaL_setmetatable(L, RUN_META);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, RUN_LIST);
}

/* tardy.family(name, spec): spec.fit(points, opts) → model | nil, reason. */
static int api_family(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_getfield(L, 2, "fit") != LUA_TFUNCTION)
        return luaL_error(L, "family '%s' needs a fit function", name);
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, FAMILIES);
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, name);
    return 0;
}

/* tardy.policy(name, fn(ctx) → predictions). */
static int api_policy(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_getfield(L, LUA_REGISTRYINDEX, POLICIES);
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, name);
    return 0;
}

/* tardy.on_init(fn(ctx) → settings): the hook rank 0 runs after MPI_Init (the last one
 * registered). */
static int api_on_init(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_pushvalue(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, INIT_HOOK);
    return 0;
}

/* tardy.families() → the names of the registered families, sorted. */
static int api_families(lua_State *L)
{
    lua_newtable(L);
    lua_getfield(L, LUA_REGISTRYINDEX, FAMILIES);
    lua_pushnil(L);
    for (lua_Integer n = 0; lua_next(L, -2);) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -4, ++n);
    }
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_remove(L, -2);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
    return 1;
}

/* tardy.get_family(name) → spec or nil: families can build on each other. */
static int api_get_family(lua_State *L)
{
    api_push_family(L, luaL_checkstring(L, 1));
    return 1;
}

void api_push_family(lua_State *L, const char *name)
{
    lua_getfield(L, LUA_REGISTRYINDEX, FAMILIES);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
}

void api_push_policy(lua_State *L, const char *name)
{
    lua_getfield(L, LUA_REGISTRYINDEX, POLICIES);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
}

void api_push_init_ctx(lua_State *L, const struct profile *job)
{
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, job->ranks);
    lua_setfield(L, -2, "p");
    push_params(L, job);
    lua_setfield(L, -2, "params");
    lua_pushstring(L, job->program ? job->program : "");
    lua_setfield(L, -2, "program");
    push_cvars(L, job);
    lua_setfield(L, -2, "cvars");
    api_runs(L);
    lua_setfield(L, -2, "runs");
}

void api_push_init_hook(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, INIT_HOOK);
}

void api_policy_names(lua_State *L, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    lua_getfield(L, LUA_REGISTRYINDEX, POLICIES);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING && used + 2 < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     lua_tostring(L, -1));
    }
    lua_pop(L, 1);
}

void api_open(lua_State *L, const struct profile *runs, int nruns, int current_last)
{
    static const luaL_Reg run_methods[] = {{"__index", run_index},
                                           {"__newindex", read_only},
                                           {"__tostring", run_tostring},
                                           {NULL, NULL}};
    luaL_newmetatable(L, RUN_META);
    luaL_setfuncs(L, run_methods, 0);
    lua_pop(L, 1);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, FAMILIES);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, POLICIES);

    api_set_runs(L, runs, nruns, current_last);

    lua_newtable(L);
    lua_pushinteger(L, TARDY_LUA_API);
    lua_setfield(L, -2, "api_version");
    static const luaL_Reg fns[] = {{"runs", api_runs},
                                   {"family", api_family},
                                   {"policy", api_policy},
                                   {"on_init", api_on_init},
                                   {"get_family", api_get_family},
                                   {"families", api_families},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
    api_fit_register(L);
    api_forms_register(L);
    api_scales_register(L);
    api_points_register(L);
    lua_setglobal(L, "tardy");
}
