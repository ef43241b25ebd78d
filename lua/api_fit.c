/* The fitting primitives of predict/predict.h for Lua:
 *   tardy.lsq(rows, y [, w])           → coef, rss, h       linear least squares (SVD)
 *   tardy.lm(f, p0, xs, ys [, lo, hi]) → params, rss, h     Levenberg–Marquardt, f(params, xs)
 *                                                           returns the model at every x
 *   tardy.decay(xs, ys)                → a, r, c, rss       y = a·e^(−r·x) + c, r > 0, c >= 0
 *   (h: the leverage of each point, for closed-form leave-one-out: e_i / (1 - h_i))
 *   tardy.rss/smape/r2(a, p), tardy.mape(a, p), tardy.adj_r2(a, p, k)
 *   tardy.loo(points, fit)             → smape, predictions  leave-one-out cross-validation
 *   tardy.pmnf(points [, opts])        → model               PMNF search (docs/design.md 3.4);
 *                                                           model.range(x): the near-best
 *                                                           models' smallest and largest value
 * Points are {x = {p = 4, n = 1024}, y = value}, at most tardy.max_points of them. Misuse
 * raises an error; a fit that cannot be made returns nil and the reason. */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "predict/predict.h"

#define MAX_POINTS FIT_MAX_POINTS
#define MODEL_META "tardy.pmnf_model"

/* Array of numbers at idx into out (at most max); returns the count. */
static int numbers(lua_State *L, int idx, double *out, int max, const char *what)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    int n = (int)luaL_len(L, idx);
    if (n > max)
        luaL_error(L, "%s: at most %d values", what, max);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (!lua_isnumber(L, -1))
            luaL_error(L, "%s[%d] is not a number", what, i + 1);
        out[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return n;
}

static void push_numbers(lua_State *L, const double *v, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

static int fail(lua_State *L, int code)
{
    lua_pushnil(L);
    lua_pushstring(L, fit_strerror(code));
    return 2;
}

/* tardy.lsq(rows, y [, w]) → coef, rss | nil, reason */
static int l_lsq(lua_State *L)
{
    double y[MAX_POINTS], w[MAX_POINTS], X[MAX_POINTS * 8], coef[8], rss;
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = numbers(L, 2, y, MAX_POINTS, "y"), k = 0;
    if ((int)luaL_len(L, 1) != n)
        return luaL_error(L, "lsq: %d rows but %d values", (int)luaL_len(L, 1), n);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        double row[8];
        int m = numbers(L, lua_gettop(L), row, 8, "row");
        if (i == 0)
            k = m;
        if (m != k || k == 0)
            return luaL_error(L, "lsq: row %d has %d columns, not %d", i + 1, m, k);
        memcpy(&X[i * k], row, (size_t)k * sizeof *row);
        lua_pop(L, 1);
    }
    int has_w = !lua_isnoneornil(L, 3);
    if (has_w && numbers(L, 3, w, MAX_POINTS, "w") != n)
        return luaL_error(L, "lsq: one weight per point");
    double h[MAX_POINTS];
    int rc = fit_lsq_leverage(X, n, k, y, has_w ? w : NULL, coef, &rss, h);
    if (rc)
        return fail(L, rc);
    push_numbers(L, coef, k);
    lua_pushnumber(L, rss);
    push_numbers(L, h, n);
    return 3;
}

struct lm_ctx {
    lua_State *L;
    int fn, xs, n;
    const double *ys;
    int k;
    int error; /* registry reference of the model's error, or LUA_NOREF */
};

/* r_i = f(params, xs)[i] - ys[i]: one call of the Lua model for all points. */
static int lm_resid(const double *params, double *r, void *arg)
{
    struct lm_ctx *c = arg;
    lua_State *L = c->L;
    lua_pushvalue(L, c->fn);
    push_numbers(L, params, c->k);
    lua_pushvalue(L, c->xs);
    /* protected: an error must not jump over fit_lm's buffers; it is raised again after */
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        if (c->error == LUA_NOREF)
            c->error = luaL_ref(L, LUA_REGISTRYINDEX);
        else
            lua_pop(L, 1);
        return -1;
    }
    int ok = lua_istable(L, -1);
    for (int i = 0; ok && i < c->n; i++) {
        lua_rawgeti(L, -1, i + 1);
        ok = lua_isnumber(L, -1);
        r[i] = ok ? lua_tonumber(L, -1) - c->ys[i] : NAN;
        ok = ok && isfinite(r[i]);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return ok ? 0 : -1;
}

/* The model's error (kept by lm_resid), raised again now that the C buffers are freed. */
static int raise_model_error(lua_State *L, struct lm_ctx *c)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->error);
    luaL_unref(L, LUA_REGISTRYINDEX, c->error);
    return lua_error(L);
}

/* tardy.lm(f, p0, xs, ys [, lower, upper [, max_iter]]) → params, rss | nil, reason.
 * f(params, xs) returns the array of the model's values at xs (xs is passed through as is). */
static int l_lm(lua_State *L)
{
    double p[8], ys[MAX_POINTS], lo[8], hi[8], rss;
    luaL_checktype(L, 1, LUA_TFUNCTION);
    int k = numbers(L, 2, p, 8, "p0");
    luaL_checktype(L, 3, LUA_TTABLE);
    int n = numbers(L, 4, ys, MAX_POINTS, "ys");
    if ((int)luaL_len(L, 3) != n)
        return luaL_error(L, "lm: %d x values but %d y values", (int)luaL_len(L, 3), n);
    int has_lo = !lua_isnoneornil(L, 5), has_hi = !lua_isnoneornil(L, 6);
    if ((has_lo && numbers(L, 5, lo, 8, "lower") != k) ||
        (has_hi && numbers(L, 6, hi, 8, "upper") != k))
        return luaL_error(L, "lm: bounds need one value per parameter");
    struct lm_ctx c = {L, 1, 3, n, ys, k, LUA_NOREF};
    int rc = fit_lm(lm_resid, &c, n, k, p, has_lo ? lo : NULL, has_hi ? hi : NULL,
                    (int)luaL_optinteger(L, 7, 200), &rss);
    if (c.error != LUA_NOREF)
        return raise_model_error(L, &c);
    if (rc)
        return fail(L, rc);
    push_numbers(L, p, k);
    lua_pushnumber(L, rss);
    /* Leverages from the Jacobian at the optimum; a parameter held at a bound is fixed. */
    double J[MAX_POINTS * 8], Jfree[MAX_POINTS * 8], h[MAX_POINTS];
    if (fit_jacobian(lm_resid, &c, n, k, p, J) != FIT_OK)
        return c.error != LUA_NOREF ? raise_model_error(L, &c) : 2;
    int free_k = 0, at_bound[8];
    for (int j = 0; j < k; j++) {
        double scale = 1e-9 * (fabs(p[j]) + 1e-12);
        at_bound[j] = (has_lo && fabs(p[j] - lo[j]) <= scale) ||
                      (has_hi && fabs(p[j] - hi[j]) <= scale);
        free_k += !at_bound[j];
    }
    for (int i = 0, m; i < n; i++) {
        m = 0;
        for (int j = 0; j < k; j++)
            if (!at_bound[j])
                Jfree[i * free_k + m++] = J[i * k + j];
    }
    if (free_k == 0 || fit_leverage(Jfree, n, free_k, NULL, h) != FIT_OK)
        return 2;
    push_numbers(L, h, n);
    return 3;
}

static int pair(lua_State *L, double *a, double *p)
{
    int n = numbers(L, 1, a, MAX_POINTS, "actual");
    if (numbers(L, 2, p, MAX_POINTS, "predicted") != n)
        luaL_error(L, "actual and predicted differ in length");
    return n;
}

static int l_rss(lua_State *L)
{
    double a[MAX_POINTS], p[MAX_POINTS];
    int n = pair(L, a, p);
    lua_pushnumber(L, fit_rss(a, p, n));
    return 1;
}

static int l_smape(lua_State *L)
{
    double a[MAX_POINTS], p[MAX_POINTS];
    int n = pair(L, a, p);
    lua_pushnumber(L, fit_smape(a, p, n));
    return 1;
}

static int l_mape(lua_State *L)
{
    double a[MAX_POINTS], p[MAX_POINTS], v;
    int n = pair(L, a, p);
    if (fit_mape(a, p, n, &v))
        return fail(L, FIT_EINPUT);
    lua_pushnumber(L, v);
    return 1;
}

static int l_r2(lua_State *L)
{
    double a[MAX_POINTS], p[MAX_POINTS];
    int n = pair(L, a, p);
    lua_pushnumber(L, fit_r2(a, p, n));
    return 1;
}

static int l_adj_r2(lua_State *L)
{
    double a[MAX_POINTS], p[MAX_POINTS];
    int n = pair(L, a, p);
    double v = fit_adj_r2(a, p, n, (int)luaL_checkinteger(L, 3));
    if (isnan(v))
        return fail(L, FIT_EINPUT);
    lua_pushnumber(L, v);
    return 1;
}

/* tardy.loo(points, fit) → smape, predictions | nil, reason.
 * fit(points) must return a model with predict(x), or nil and a reason. */
static int l_loo(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    int n = (int)luaL_len(L, 1);
    double a[MAX_POINTS], p[MAX_POINTS];
    if (n < 3 || n > MAX_POINTS)
        return fail(L, FIT_EINPUT);
    for (int i = 0; i < n; i++) {
        lua_pushvalue(L, 2);
        lua_createtable(L, n - 1, 0);
        for (int j = 0, m = 0; j < n; j++)
            if (j != i) {
                lua_rawgeti(L, 1, j + 1);
                lua_rawseti(L, -2, ++m);
            }
        lua_call(L, 1, 2);
        if (!lua_istable(L, -2)) {
            lua_pop(L, 1);
            return 2; /* nil, reason from the fit */
        }
        lua_pop(L, 1);
        lua_getfield(L, -1, "predict");
        lua_rawgeti(L, 1, i + 1);
        lua_getfield(L, -1, "x");
        lua_remove(L, -2);
        lua_call(L, 1, 1);
        p[i] = lua_tonumber(L, -1);
        lua_pop(L, 2);
        lua_rawgeti(L, 1, i + 1);
        lua_getfield(L, -1, "y");
        a[i] = lua_tonumber(L, -1);
        lua_pop(L, 2);
    }
    lua_pushnumber(L, fit_smape(a, p, n));
    push_numbers(L, p, n);
    return 2;
}

/* ---- PMNF ------------------------------------------------------------------------------- */

#define PMNF_NEAR 8 /* near-best models kept for the spread at a target */

/* Sized to the models it keeps: the interval refits a series' best family on 40 noise draws
 * and keeps each refit's predict, so 8 models each (4.5 KB) made 90 KB a series, and an
 * Extra-P file of 6000 regions reached the Lua memory cap. */
struct lua_pmnf {
    int count;
    char names[PMNF_MAX_PARAMS][32];
    struct pmnf_model m[]; /* m[0] the chosen model, then the near-best */
};

/* The parameters of the first `models` of u's models from the table at idx into x; raises an
 * error naming one they use that is missing or not above 0 (its logs and powers), and takes
 * 1 for one they do not use (io's 2 + 0.01·p at n = 0). */
static void pmnf_point(lua_State *L, struct lua_pmnf *u, int idx, int models, double *x)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    for (int d = 0; d < u->m[0].nparams; d++) {
        int used = 0;
        for (int i = 0; i < models && !used; i++)
            used = pmnf_uses(&u->m[i], d);
        lua_getfield(L, idx, u->names[d]);
        int positive = lua_isnumber(L, -1) && lua_tonumber(L, -1) > 0;
        if (used && !positive)
            luaL_error(L, "predict: parameter %s must be a positive number", u->names[d]);
        x[d] = positive ? lua_tonumber(L, -1) : 1;
        lua_pop(L, 1);
    }
}

/* model.range(x) → low, high: the smallest and largest value of the near-best models at x
 * (the chosen one among them). */
static int pmnf_range(lua_State *L)
{
    struct lua_pmnf *u = luaL_checkudata(L, lua_upvalueindex(1), MODEL_META);
    double x[PMNF_MAX_PARAMS], lo = INFINITY, hi = -INFINITY;
    pmnf_point(L, u, 1, u->count, x);
    for (int i = 0; i < u->count; i++) {
        double v = pmnf_eval(&u->m[i], x);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    lua_pushnumber(L, lo);
    lua_pushnumber(L, hi);
    return 2;
}

/* model.predict(x): x is a table of parameter values. */
static int pmnf_predict(lua_State *L)
{
    struct lua_pmnf *u = luaL_checkudata(L, lua_upvalueindex(1), MODEL_META);
    double x[PMNF_MAX_PARAMS];
    pmnf_point(L, u, 1, 1, x);
    lua_pushnumber(L, pmnf_eval(&u->m[0], x));
    return 1;
}

/* (api.h) */
static int by_name_p_first(const void *a, const void *b)
{
    const char *x = a, *y = b;
    if (strcmp(x, y) && (!strcmp(x, "p") || !strcmp(y, "p")))
        return !strcmp(x, "p") ? -1 : 1;
    return strcmp(x, y);
}

int api_varying(lua_State *L, int pts, int n, char names[][32])
{
    int count = 0;
    lua_rawgeti(L, pts, 1);
    lua_getfield(L, -1, "x");
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_isnumber(L, -1)) {
            const char *key = lua_tostring(L, -2);
            double first = lua_tonumber(L, -1);
            int varies = 0;
            for (int i = 2; i <= n && !varies; i++) {
                lua_rawgeti(L, pts, i);
                lua_getfield(L, -1, "x");
                lua_getfield(L, -1, key);
                varies = lua_tonumber(L, -1) != first;
                lua_pop(L, 3);
            }
            if (varies && count < API_MAX_VARYING && strlen(key) < 32)
                snprintf(names[count++], 32, "%s", key);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    /* in a fixed order, not the hash table's: which three a caller gets must not vary */
    qsort(names, (size_t)count, 32, by_name_p_first);
    return count;
}

/* When more than max parameters vary (np, names as api_varying gave them): pushes nil and the
 * reason a model of at most max cannot stand for them, a Lua function's two results, and
 * returns 2; else 0 and nothing pushed. */
int api_too_many(lua_State *L, int np, char names[][32], int max)
{
    if (np <= max)
        return 0;
    lua_pushnil(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "%d parameters vary (", np);
    luaL_addvalue(&b);
    for (int d = 0; d < np; d++) {
        luaL_addstring(&b, names[d]);
        luaL_addstring(&b, d + 1 < np ? ", " : "");
    }
    lua_pushfstring(L, ") and a model takes at most %d: give the runs where the others are "
                       "fixed", max);
    luaL_addvalue(&b);
    luaL_pushresult(&b);
    return 2;
}

/* tardy.varying(points) → the names of the parameters that vary over the points ("p" first,
 * then by name): what tardy.pmnf models, and how a family of one parameter finds it. */
static int l_varying(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)luaL_len(L, 1);
    char names[API_MAX_VARYING][32];
    int np = n ? api_varying(L, 1, n, names) : 0;
    lua_createtable(L, np, 0);
    for (int d = 0; d < np; d++) {
        lua_pushstring(L, names[d]);
        lua_rawseti(L, -2, d + 1);
    }
    return 1;
}

/* tardy.pmnf(points [, {negative = true}]) → model | nil, reason.
 * model = {formula, fit_error, uncertainty (LOO SMAPE %), extrap_error (forward-chaining SMAPE
 * %, when every parameter has 4 values), params, predict = function(x), range = function(x)}.
 * Points whose reps (the values their y is the median of, tardy.medians) all hold
 * PMNF_REPEATED or more are searched as repeated (pmnf_options.repeated). */
static int l_pmnf(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)luaL_len(L, 1);
    if (n < 3 || n > MAX_POINTS) {
        lua_pushnil(L);
        lua_pushfstring(L, "needs 3 to %d points, has %d", MAX_POINTS, n);
        return 2;
    }
    struct pmnf_options opt = {.negative = 1};
    int keep = PMNF_NEAR;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "negative");
        if (!lua_isnil(L, -1))
            opt.negative = lua_toboolean(L, -1);
        lua_getfield(L, 2, "refit");
        if (lua_toboolean(L, -1))
            keep = 1; /* its predict alone is used: no near-best for range */
        lua_pop(L, 2);
    }
    char all[API_MAX_VARYING][32];
    int np = api_varying(L, 1, n, all);
    if (api_too_many(L, np, all, PMNF_MAX_PARAMS))
        return 2;
    if (np == 0) {
        np = 1; /* nothing varies: a constant in p */
        snprintf(all[0], 32, "p");
    }
    double x[MAX_POINTS * PMNF_MAX_PARAMS], y[MAX_POINTS];
    opt.repeated = 1;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        lua_getfield(L, -1, "reps"); /* tardy.medians: the values y is the median of */
        int reps = lua_istable(L, -1) ? (int)luaL_len(L, -1) : 1;
        opt.repeated &= reps >= PMNF_REPEATED;
        lua_pop(L, 1);
        lua_getfield(L, -1, "y");
        y[i] = lua_tonumber(L, -1);
        lua_getfield(L, -2, "x");
        for (int d = 0; d < np; d++) {
            lua_getfield(L, -1, all[d]);
            x[i * np + d] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 3);
    }
    const char *names[PMNF_MAX_PARAMS] = {all[0], all[1], all[2]};
    opt.names = names;
    struct pmnf_model ranked[PMNF_NEAR];
    int rc = fit_pmnf_ranked(x, np, y, n, &opt, ranked, keep);
    if (rc < 0)
        return fail(L, rc);
    struct lua_pmnf *u = lua_newuserdatauv(L, sizeof *u + (size_t)rc * sizeof *ranked, 0);
    u->count = rc;
    memcpy(u->names, all, sizeof u->names);
    memcpy(u->m, ranked, (size_t)rc * sizeof *ranked);
    luaL_setmetatable(L, MODEL_META);
    int ud = lua_gettop(L);
    lua_createtable(L, 0, 8);
    lua_pushstring(L, u->m[0].formula);
    lua_setfield(L, -2, "formula");
    lua_pushnumber(L, u->m[0].fit_smape);
    lua_setfield(L, -2, "fit_error");
    lua_pushnumber(L, u->m[0].loo_smape);
    lua_setfield(L, -2, "uncertainty");
    if (isfinite(u->m[0].extrap_smape)) {
        lua_pushnumber(L, u->m[0].extrap_smape);
        lua_setfield(L, -2, "extrap_error");
    }
    lua_pushvalue(L, ud);
    lua_pushcclosure(L, pmnf_range, 1);
    lua_setfield(L, -2, "range");
    lua_createtable(L, np, 0);
    for (int d = 0; d < np; d++) {
        lua_pushstring(L, u->names[d]);
        lua_rawseti(L, -2, d + 1);
    }
    lua_setfield(L, -2, "params");
    lua_pushvalue(L, ud);
    lua_pushcclosure(L, pmnf_predict, 1);
    lua_setfield(L, -2, "predict");
    return 1;
}

/* tardy.decay(xs, ys) → a, r, c, rss | nil, reason: least squares y = a·e^(−r·x) + c with
 * r > 0, c >= 0 (the cache-profile exponential, done in C: a Lua search costs ~40 sums). */
static int l_decay(lua_State *L)
{
    double x[MAX_POINTS], y[MAX_POINTS], a, r, c, rss;
    int n = numbers(L, 1, x, MAX_POINTS, "decay: xs");
    if (numbers(L, 2, y, MAX_POINTS, "decay: ys") != n)
        return luaL_error(L, "decay: %d x values but %d y values", n, (int)luaL_len(L, 2));
    int rc = fit_decay(x, y, n, &a, &r, &c, &rss);
    if (rc)
        return fail(L, rc);
    lua_pushnumber(L, a);
    lua_pushnumber(L, r);
    lua_pushnumber(L, c);
    lua_pushnumber(L, rss);
    return 4;
}

void api_fit_register(lua_State *L)
{
    luaL_newmetatable(L, MODEL_META);
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"lsq", l_lsq},       {"lm", l_lm},       {"rss", l_rss},
                                   {"smape", l_smape},   {"mape", l_mape},   {"r2", l_r2},
                                   {"adj_r2", l_adj_r2}, {"loo", l_loo},     {"pmnf", l_pmnf},
                                   {"decay", l_decay},   {"varying", l_varying},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
    lua_pushinteger(L, MAX_POINTS);
    lua_setfield(L, -2, "max_points");
}
