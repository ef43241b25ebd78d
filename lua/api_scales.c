/* Repetitions for Lua: the runs of one scale taken together.
 *   tardy.medians(points) → points   one per scale, y the median of its values, reps the values
 *   tardy.trend(points)   → result   does the series change beyond the noise between
 *                                    repetitions (predict/trend.c)
 *   tardy.points_for(points, target) → points, held | nil, reason
 *                                    the points a prediction at target may use
 * A scale is a set of points whose x tables hold the same values. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "predict/predict.h"

/* The scale of the point at idx (a table with field x) as text: its x table's fields in name
 * order, "k=v" joined by ",", into buf. */
struct field {
    const char *key;
    char value[40];
};

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct field *)a)->key, ((const struct field *)b)->key);
}

static void scale_text(lua_State *L, int idx, char *buf, size_t len)
{
    struct field f[16];
    int nf = 0;
    lua_getfield(L, idx, "x");
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) == LUA_TSTRING && nf < 16) {
            f[nf].key = lua_tostring(L, -2); /* the key stays on the x table */
            if (lua_type(L, -1) == LUA_TNUMBER)
                snprintf(f[nf].value, sizeof f[nf].value, "%.17g", lua_tonumber(L, -1));
            else
                snprintf(f[nf].value, sizeof f[nf].value, "%s", luaL_tolstring(L, -1, NULL));
            if (lua_type(L, -1) != LUA_TNUMBER)
                lua_pop(L, 1); /* luaL_tolstring's copy */
            nf++;
        }
        lua_pop(L, 1);
    }
    qsort(f, (size_t)nf, sizeof *f, by_key);
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < nf && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", i ? "," : "", f[i].key, f[i].value);
    lua_pop(L, 1);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The scale index of every point of the table at idx (first-seen order) into scale[n];
 * returns the number of scales. */
static int scales_of(lua_State *L, int idx, int n, int *scale)
{
    char(*text)[512] = malloc((size_t)n * sizeof *text);
    if (!text)
        return luaL_error(L, "out of memory");
    int k = 0;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        luaL_checktype(L, -1, LUA_TTABLE);
        scale_text(L, lua_gettop(L), text[i], sizeof text[i]);
        lua_pop(L, 1);
        scale[i] = -1;
        for (int j = 0; j < i && scale[i] < 0; j++)
            if (!strcmp(text[j], text[i]))
                scale[i] = scale[j];
        if (scale[i] < 0)
            scale[i] = k++;
    }
    free(text);
    return k;
}

/* tardy.medians(points) → one point per scale, in the order of its first point:
 * {x = that point's x, y = the median of the scale's values, reps = the values}. */
static int l_medians(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)luaL_len(L, 1);
    if (n > FIT_MAX_VALUES)
        return luaL_error(L, "medians: at most %d points", FIT_MAX_VALUES);
    int *scale = malloc((size_t)(n ? n : 1) * sizeof *scale);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!scale || !v) {
        free(scale);
        free(v);
        return luaL_error(L, "out of memory");
    }
    int k = scales_of(L, 1, n, scale);
    lua_createtable(L, k, 0);
    for (int s = 0; s < k; s++) {
        int m = 0, first = -1;
        lua_createtable(L, 0, 3);
        lua_newtable(L); /* reps */
        for (int i = 0; i < n; i++) {
            if (scale[i] != s)
                continue;
            first = first < 0 ? i : first;
            lua_rawgeti(L, 1, i + 1);
            lua_getfield(L, -1, "y");
            if (!lua_isnumber(L, -1)) {
                free(scale);
                free(v);
                return luaL_error(L, "medians: points[%d].y is not a number", i + 1);
            }
            v[m] = lua_tonumber(L, -1);
            lua_rawseti(L, -3, ++m);
            lua_pop(L, 1);
        }
        lua_setfield(L, -2, "reps");
        qsort(v, (size_t)m, sizeof *v, by_double);
        lua_pushnumber(L, m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2);
        lua_setfield(L, -2, "y");
        lua_rawgeti(L, 1, first + 1);
        lua_getfield(L, -1, "x");
        lua_setfield(L, -3, "x");
        lua_pop(L, 1);
        lua_rawseti(L, -2, s + 1);
    }
    free(scale);
    free(v);
    return 1;
}

/* tardy.trend(points) → {trend = boolean, test = "what decided"} | nil, reason. Points with
 * reps (tardy.medians) give their repetitions; other points are values of their own. */
static int l_trend(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)luaL_len(L, 1);
    char names[PMNF_MAX_PARAMS][32];
    const char *nm[PMNF_MAX_PARAMS];
    int np = n ? api_varying(L, 1, n, names) : 0;
    for (int d = 0; d < np; d++)
        nm[d] = names[d];
    if (np < 1) {
        lua_pushnil(L);
        lua_pushstring(L, "no parameter varies over the points");
        return 2;
    }
    int total = 0; /* values: each point's repetitions, or its y */
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        lua_getfield(L, -1, "reps");
        total += lua_istable(L, -1) ? (int)luaL_len(L, -1) : 1;
        lua_pop(L, 2);
    }
    if (total > FIT_MAX_VALUES)
        return luaL_error(L, "trend: at most %d values", FIT_MAX_VALUES);
    size_t cells = total ? (size_t)total : 1;
    double *x = malloc(cells * np * sizeof *x), *y = malloc(cells * sizeof *y);
    int *scale = malloc(cells * sizeof *scale), m = 0, nscales = 0;
    int *of_point = malloc((size_t)(n ? n : 1) * sizeof *of_point);
    if (!x || !y || !scale || !of_point) {
        free(x);
        free(y);
        free(scale);
        free(of_point);
        return luaL_error(L, "out of memory");
    }
    nscales = scales_of(L, 1, n, of_point);
    for (int i = 0; i < n; i++) {
        double xi[PMNF_MAX_PARAMS];
        lua_rawgeti(L, 1, i + 1);
        lua_getfield(L, -1, "x");
        for (int d = 0; d < np; d++) {
            lua_getfield(L, -1, names[d]);
            xi[d] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        lua_getfield(L, -1, "reps");
        int has_reps = lua_istable(L, -1);
        int nv = has_reps ? (int)luaL_len(L, -1) : 1;
        for (int j = 0; j < nv; j++, m++) {
            if (has_reps)
                lua_rawgeti(L, -1, j + 1);
            else
                lua_getfield(L, -2, "y");
            y[m] = lua_tonumber(L, -1);
            lua_pop(L, 1);
            memcpy(&x[m * np], xi, (size_t)np * sizeof *xi);
            scale[m] = of_point[i];
        }
        lua_pop(L, 2);
    }
    struct trend_result r;
    int rc = fit_trend(x, np, nm, scale, nscales, y, m, &r);
    free(of_point);
    free(x);
    free(y);
    free(scale);
    if (rc == FIT_EINPUT) {
        lua_pushnil(L);
        lua_pushstring(L, "needs two or more repetitions at every scale, and two scales");
        return 2;
    }
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, fit_strerror(rc));
        return 2;
    }
    lua_createtable(L, 0, 2);
    lua_pushboolean(L, r.trend);
    lua_setfield(L, -2, "trend");
    lua_pushstring(L, r.what);
    lua_setfield(L, -2, "test");
    return 1;
}

/* Point i's value of parameter key (NaN when it has none). */
static double param_of(lua_State *L, int pts, int i, const char *key)
{
    lua_rawgeti(L, pts, i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_getfield(L, -1, "x");
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_getfield(L, -1, key);
    double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
    lua_pop(L, 3);
    return v;
}

/* tardy.points_for(points, target) → points, held | nil, reason. A parameter the points hold
 * at two values only has no law that two values could tell apart (PMNF needs three, and a
 * family of one parameter would take it for the scale); pooled, its two groups average into
 * one flat curve of the other parameters (halo3d at 1 and 2 ranks over block sizes: MPI_Waitall
 * 0.1 ms with messages to itself, 6 ms to another rank, predicted 0.1 ms for both). So a target
 * at one of the two values is predicted from the points at that value (held names them:
 * "p=2", "" when all points serve), and at another value it cannot be; nor at another value
 * of a parameter the points hold at one value (a metric only runs of 2 ranks have, as their
 * wait states, says nothing of how it changes with p). */
static int l_points_for(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    int n = (int)luaL_len(L, 1);
    struct field f[16];
    int nf = 0;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER && nf < 16) {
            f[nf].key = lua_tostring(L, -2);
            snprintf(f[nf++].value, sizeof f[0].value, "%.17g", lua_tonumber(L, -1));
        }
        lua_pop(L, 1);
    }
    qsort(f, (size_t)nf, sizeof *f, by_key);
    unsigned char *keep = malloc((size_t)(n ? n : 1));
    if (!keep)
        return luaL_error(L, "out of memory");
    memset(keep, 1, (size_t)(n ? n : 1));
    char held[512] = "", at[512] = "";
    size_t used = 0, atlen = 0;
    for (int k = 0; k < nf; k++)
        atlen += (size_t)snprintf(at + atlen, atlen < sizeof at ? sizeof at - atlen : 0,
                                  "%s%s=%s", k ? "," : "", f[k].key, f[k].value);
    for (int k = 0; k < nf; k++) {
        double a = NAN, b = NAN, t = strtod(f[k].value, NULL);
        int count = 0;
        for (int i = 0; i < n && count < 3; i++) {
            double v = param_of(L, 1, i, f[k].key);
            if (v != v || v == a || v == b)
                continue;
            if (count == 0)
                a = v;
            else if (count == 1)
                b = v;
            count++;
        }
        if (count == 0 || count == 3 || (count == 1 && t == a))
            continue;
        if (t != a && t != b) {
            char lo[32], hi[32];
            snprintf(lo, sizeof lo, "%.17g", count == 1 || a < b ? a : b);
            snprintf(hi, sizeof hi, "%.17g", a < b ? b : a);
            free(keep);
            lua_pushnil(L);
            if (count == 1)
                lua_pushfstring(L, "no prediction at %s: the runs with it have %s=%s only",
                                at, f[k].key, lo);
            else
                lua_pushfstring(L, "no prediction at %s: the runs have %s at two values only "
                                   "(%s and %s), too few for a law of %s", at, f[k].key, lo,
                                hi, f[k].key);
            return 2;
        }
        for (int i = 0; i < n; i++)
            keep[i] &= param_of(L, 1, i, f[k].key) == t;
        used += (size_t)snprintf(held + used, used < sizeof held ? sizeof held - used : 0,
                                 "%s%s=%s", used ? "," : "", f[k].key, f[k].value);
    }
    lua_createtable(L, n, 0);
    for (int i = 0, m = 0; i < n; i++)
        if (keep[i]) {
            lua_rawgeti(L, 1, i + 1);
            lua_rawseti(L, -2, ++m);
        }
    free(keep);
    lua_pushstring(L, held);
    return 2;
}

void api_scales_register(lua_State *L)
{
    static const luaL_Reg fns[] = {{"medians", l_medians},
                                   {"trend", l_trend},
                                   {"points_for", l_points_for},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
