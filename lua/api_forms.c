/* The one-parameter families' fitting, in C (predict/scalaextrap.c, predict/cacheprofile.c):
 *   tardy.scalaextrap(points) → kind, u, v, score, fit_error, uncertainty, extrap_error
 *                               ScalaExtrap's four models against p (seed 000); the errors in
 *                               percent, uncertainty and extrap_error nil where they cannot
 *                               be measured
 *   tardy.cacheprofile(points [, refit]) → kind, param, a, b, c, d, fit_error, uncertainty,
 *                               extrap_error
 *                               the cache-profile models against the one parameter that
 *                               varies (seed 004), the coefficients as cacheprofile_eval takes
 *                               them; with refit the model alone (kind, param, a, b, c, d)
 * Points are {x = {p = 4}, y = value}; a fit that cannot be made returns nil and the reason. */
#include <lauxlib.h>
#include <math.h>
#include <string.h>

#include "api.h"
#include "predict/predict.h"

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

static int l_scalaextrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)luaL_len(L, 1);
    if (n < 3) {
        lua_pushnil(L);
        lua_pushfstring(L, "needs 3 runs at different process counts, has %d", n);
        return 2;
    }
    if (n > FIT_MAX_POINTS)
        return luaL_error(L, "scalaextrap: at most %d points", FIT_MAX_POINTS);
    char names[API_MAX_VARYING][32];
    int np = api_varying(L, 1, n, names);
    for (int d = 0; d < np; d++) {
        if (names[d][0] != 'p' || names[d][1]) {
            lua_pushnil(L);
            lua_pushfstring(L, "scalaextrap models the process count only (%s varies)", names[d]);
            return 2;
        }
    }
    double p[FIT_MAX_POINTS], t[FIT_MAX_POINTS];
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        lua_getfield(L, -1, "y");
        lua_getfield(L, -2, "x");
        lua_getfield(L, -1, "p");
        if (!lua_isnumber(L, -1) || !lua_isnumber(L, -3))
            return refuse(L, "scalaextrap models the process count p: a point has no p or no y");
        p[i] = lua_tonumber(L, -1);
        t[i] = lua_tonumber(L, -3);
        lua_pop(L, 4);
    }
    struct scalaextrap_fit f;
    if (fit_scalaextrap(p, t, n, &f) != FIT_OK)
        return refuse(L, "no model scores");
    lua_pushstring(L, scalaextrap_forms[f.form]);
    lua_pushnumber(L, f.u);
    lua_pushnumber(L, f.v);
    lua_pushnumber(L, f.score);
    lua_pushnumber(L, f.fit_smape);
    push_percent(L, f.loo_smape);
    push_percent(L, f.extrap_smape);
    return 7;
}

static int l_cacheprofile(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)luaL_len(L, 1), refit = lua_toboolean(L, 2);
    if (n < 3) {
        lua_pushnil(L);
        lua_pushfstring(L, "needs 3 runs, has %d", n);
        return 2;
    }
    if (n > FIT_MAX_POINTS)
        return luaL_error(L, "cacheprofile: at most %d points", FIT_MAX_POINTS);
    char names[API_MAX_VARYING][32];
    int np = api_varying(L, 1, n, names);
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
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        lua_getfield(L, -1, "y");
        lua_getfield(L, -2, "x");
        lua_getfield(L, -1, names[0]);
        x[i] = lua_tonumber(L, -1);
        y[i] = lua_tonumber(L, -3);
        lua_pop(L, 4);
        if (y[i] == 0)
            return refuse(L, "MAPE selection needs non-zero values");
    }
    struct cacheprofile_fit f;
    if (fit_cacheprofile(x, y, n, strcmp(names[0], "p") != 0, refit, &f) != FIT_OK)
        return refuse(L, "no cache-profile model fits");
    lua_pushstring(L, cacheprofile_forms[f.model.form]);
    lua_pushstring(L, names[0]);
    for (int k = 0; k < 4; k++)
        lua_pushnumber(L, f.model.coef[k]);
    if (refit)
        return 6;
    lua_pushnumber(L, f.fit_smape);
    push_percent(L, f.loo_smape);
    push_percent(L, f.extrap_smape);
    return 9;
}

void api_forms_register(lua_State *L)
{
    static const luaL_Reg fns[] = {{"scalaextrap", l_scalaextrap},
                                   {"cacheprofile", l_cacheprofile},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
