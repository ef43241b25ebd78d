/* The one-parameter families' fitting, in C (predict/scalaextrap.c, predict/cacheprofile.c):
 *   tardy.scalaextrap(points [, refit])   ScalaExtrap's four models against p (seed 000)
 *   tardy.cacheprofile(points [, refit])  the cache-profile models against the one parameter
 *                                         that varies (seed 004)
 * Each returns a model {kind, formula, params, fit_error, uncertainty, extrap_error, predict}
 * (scalaextrap's also its score d1..d4; the errors in percent, uncertainty and extrap_error
 * nil where they cannot be measured), with refit {predict} alone, or nil and the reason.
 * Points are {x = {p = 4}, y = value}. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "predict/predict.h"

/* ScalaExtrap's formulas by form, of u and v */
static const char *const SCALAEXTRAP_FORMULA[] = {"%.6g", "%.6g * p + %.6g", "%.6g / p",
                                                  "%.6g / p + %.6g"};

static void push_percent(lua_State *L, double v)
{
    if (isfinite(v))
        lua_pushnumber(L, v);
    else
        lua_pushnil(L);
}

static int refuse(lua_State *L, const char *why)
{
    lua_pushnil(L);
    lua_pushstring(L, why);
    return 2;
}

/* The points at index 1 (3 <= n <= FIT_MAX_POINTS: fewer refused with the reason too_few,
 * more an error) into *n, the parameters that vary over them into names; returns how many
 * vary, or -1 with nil and the reason pushed (two results for the Lua function). */
static int points_varying(lua_State *L, const char *family, const char *too_few, int *n,
                          char names[][32])
{
    luaL_checktype(L, 1, LUA_TTABLE);
    *n = (int)luaL_len(L, 1);
    if (*n > FIT_MAX_POINTS)
        return luaL_error(L, "%s: at most %d points", family, FIT_MAX_POINTS);
    if (*n >= 3)
        return api_varying(L, 1, *n, names);
    lua_pushnil(L);
    lua_pushfstring(L, too_few, *n);
    return -1;
}

/* Each point's x[name] and y into x, y; 0, or -1 with nil and the reason pushed where a point
 * has no number for one. */
static int read_points(lua_State *L, const char *family, int n, const char *name, double *x,
                       double *y)
{
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        lua_getfield(L, -1, "y");
        lua_getfield(L, -2, "x");
        lua_getfield(L, -1, name);
        if (!lua_isnumber(L, -1) || !lua_isnumber(L, -3)) {
            lua_pushnil(L);
            lua_pushfstring(L, "%s: point %d has no number %s or y", family, i + 1, name);
            return -1;
        }
        x[i] = lua_tonumber(L, -1);
        y[i] = lua_tonumber(L, -3);
        lua_pop(L, 4);
    }
    return 0;
}

/* A fitted model of one parameter: what predict evaluates. */
struct form_model {
    int cacheprofile; /* else scalaextrap */
    struct cacheprofile_form form;
    char param[32];
};

/* model.predict(x): the model at x[param]. */
static int form_predict(lua_State *L)
{
    const struct form_model *m = lua_touserdata(L, lua_upvalueindex(1));
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, m->param);
    if (!lua_isnumber(L, -1))
        return luaL_error(L, "the model needs a number %s", m->param);
    double x = lua_tonumber(L, -1);
    const double *k = m->form.coef;
    lua_pushnumber(L, m->cacheprofile ? cacheprofile_eval(&m->form, x)
                                      : scalaextrap_eval(m->form.form, k[0], k[1], x));
    return 1;
}

/* Push the model table of m: with refit {predict} alone, else also kind, formula, params
 * and the errors (percent). */
static void push_model(lua_State *L, const struct form_model *m, int refit, const char *kind,
                       const char *formula, double fit_error, double loo, double extrap)
{
    lua_createtable(L, 0, refit ? 1 : 7);
    struct form_model *u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = *m;
    lua_pushcclosure(L, form_predict, 1);
    lua_setfield(L, -2, "predict");
    if (refit)
        return;
    lua_pushstring(L, kind);
    lua_setfield(L, -2, "kind");
    lua_pushstring(L, formula);
    lua_setfield(L, -2, "formula");
    lua_createtable(L, 1, 0);
    lua_pushstring(L, m->param);
    lua_rawseti(L, -2, 1);
    lua_setfield(L, -2, "params");
    lua_pushnumber(L, fit_error);
    lua_setfield(L, -2, "fit_error");
    push_percent(L, loo);
    lua_setfield(L, -2, "uncertainty");
    push_percent(L, extrap);
    lua_setfield(L, -2, "extrap_error");
}

static int l_scalaextrap(lua_State *L)
{
    char names[API_MAX_VARYING][32];
    int n, np = points_varying(L, "scalaextrap",
                               "needs 3 runs at different process counts, has %d", &n, names);
    if (np < 0)
        return 2;
    for (int d = 0; d < np; d++) {
        if (strcmp(names[d], "p")) {
            lua_pushnil(L);
            lua_pushfstring(L, "scalaextrap models the process count only (%s varies)", names[d]);
            return 2;
        }
    }
    double p[FIT_MAX_POINTS], t[FIT_MAX_POINTS];
    if (read_points(L, "scalaextrap", n, "p", p, t))
        return 2;
    struct scalaextrap_fit f;
    if (fit_scalaextrap(p, t, n, &f) != FIT_OK)
        return refuse(L, "no model scores");
    struct form_model m = {.cacheprofile = 0, .form = {f.form, {f.u, f.v}}, .param = "p"};
    char formula[96];
    snprintf(formula, sizeof formula, SCALAEXTRAP_FORMULA[f.form], f.u, f.v);
    formula_tidy(formula);
    push_model(L, &m, lua_toboolean(L, 2), scalaextrap_forms[f.form], formula, f.fit_smape,
               f.loo_smape, f.extrap_smape);
    if (!lua_toboolean(L, 2)) {
        lua_pushnumber(L, f.score);
        lua_setfield(L, -2, "score");
    }
    return 1;
}

static int l_cacheprofile(lua_State *L)
{
    char names[API_MAX_VARYING][32];
    int n, refit = lua_toboolean(L, 2);
    int np = points_varying(L, "cacheprofile", "needs 3 runs, has %d", &n, names);
    if (np < 0)
        return 2;
    if (np == 0)
        return refuse(L, "no parameter varies over the runs");
    if (np > 1) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addstring(&b, "cacheprofile models one parameter at a time (");
        for (int d = 0; d < np; d++) {
            luaL_addstring(&b, names[d]);
            luaL_addstring(&b, d + 1 < np ? " and " : " vary)");
        }
        luaL_pushresult(&b);
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    double x[FIT_MAX_POINTS], y[FIT_MAX_POINTS];
    if (read_points(L, "cacheprofile", n, names[0], x, y))
        return 2;
    for (int i = 0; i < n; i++)
        if (y[i] == 0)
            return refuse(L, "MAPE selection needs non-zero values");
    struct cacheprofile_fit f;
    if (fit_cacheprofile(x, y, n, strcmp(names[0], "p") != 0, refit, &f) != FIT_OK)
        return refuse(L, "no cache-profile model fits");
    struct form_model m = {.cacheprofile = 1, .form = f.model};
    snprintf(m.param, sizeof m.param, "%s", names[0]);
    char formula[160];
    const double *k = f.model.coef;
    switch (f.model.form) {
    case CACHEPROFILE_LINEAR:
        snprintf(formula, sizeof formula, "%.6g * %s + %.6g", k[0], m.param, k[1]);
        break;
    case CACHEPROFILE_INVERSE:
        snprintf(formula, sizeof formula, "%.6g + %.6g / %s", k[0], k[1], m.param);
        break;
    case CACHEPROFILE_LOG: /* k·log(x) + b in the seed's form log(x)/log(a) + b, a = e^(1/k) */
        snprintf(formula, sizeof formula, "log(%s) / log(%.6g) + %.6g", m.param, exp(1 / k[0]),
                 k[1]);
        break;
    default: /* a·e^(−r·(x − lo)) + c in the seed's form (a·e^(r·lo))·(e^r)^−x + c */
        snprintf(formula, sizeof formula, "%.6g * %.6g^-%s + %.6g", k[0] * exp(k[1] * k[3]),
                 exp(k[1]), m.param, k[2]);
    }
    formula_tidy(formula);
    push_model(L, &m, refit, cacheprofile_forms[f.model.form], formula, f.fit_smape,
               f.loo_smape, f.extrap_smape);
    return 1;
}

void api_forms_register(lua_State *L)
{
    static const luaL_Reg fns[] = {{"scalaextrap", l_scalaextrap},
                                   {"cacheprofile", l_cacheprofile},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
