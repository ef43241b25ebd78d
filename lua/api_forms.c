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
