/* Repetitions for Lua: the runs of one scale taken together.
 *   tardy.medians(points) → points   one per scale, y the median of its values, reps the values
 *   tardy.trend(points)   → result   does the series change beyond the noise between
 *                                    repetitions (predict/trend.c)
 * A scale is a set of points whose x tables hold the same values. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "predict/predict.h"

/* The scale of a point: its x table's fields in name order. Numbers are compared as numbers
 * (as their text "%.17g" would be: -0 is not 0, and NaN is NaN), other values by their text
 * (its first 39 bytes). */
struct field {
    const char *key; /* stays on the x table, which the points table holds */
    int number;
    double v;
    char text[40];
};

struct scale {
    int nf;
    struct field f[16];
};

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct field *)a)->key, ((const struct field *)b)->key);
}

static void scale_of(lua_State *L, int idx, struct scale *s)
{
    s->nf = 0;
    lua_getfield(L, idx, "x");
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) == LUA_TSTRING && s->nf < 16) {
            struct field *f = &s->f[s->nf++];
            f->key = lua_tostring(L, -2);
            f->number = lua_type(L, -1) == LUA_TNUMBER;
            if (f->number) {
                f->v = lua_tonumber(L, -1);
            } else {
                snprintf(f->text, sizeof f->text, "%s", luaL_tolstring(L, -1, NULL));
                lua_pop(L, 1); /* luaL_tolstring's copy */
            }
        }
        lua_pop(L, 1);
    }
    qsort(s->f, (size_t)s->nf, sizeof *s->f, by_key);
    lua_pop(L, 1);
}

static const char *field_text(const struct field *f, char *buf, size_t len)
{
    if (!f->number)
        return f->text;
    snprintf(buf, len, "%.17g", f->v);
    return buf;
}

static int same_value(const struct field *a, const struct field *b)
{
    if (a->number && b->number) {
        if (signbit(a->v) != signbit(b->v))
            return 0;
        return a->v == b->v || (isnan(a->v) && isnan(b->v));
    }
    char ta[40], tb[40];
    return !strcmp(field_text(a, ta, sizeof ta), field_text(b, tb, sizeof tb));
}

static int same_scale(const struct scale *a, const struct scale *b)
{
    if (a->nf != b->nf)
        return 0;
    for (int i = 0; i < a->nf; i++)
        if (strcmp(a->f[i].key, b->f[i].key) || !same_value(&a->f[i], &b->f[i]))
            return 0;
    return 1;
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
    struct scale *of = malloc((size_t)(n ? n : 1) * sizeof *of);
    if (!of)
        return luaL_error(L, "out of memory");
    int k = 0;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        luaL_checktype(L, -1, LUA_TTABLE);
        scale_of(L, lua_gettop(L), &of[i]);
        lua_pop(L, 1);
        scale[i] = -1;
        for (int j = 0; j < i && scale[i] < 0; j++)
            if (same_scale(&of[j], &of[i]))
                scale[i] = scale[j];
        if (scale[i] < 0)
            scale[i] = k++;
    }
    free(of);
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
    char names[API_MAX_VARYING][32];
    const char *nm[PMNF_MAX_PARAMS];
    int np = n ? api_varying(L, 1, n, names) : 0;
    if (api_too_many(L, np, names, PMNF_MAX_PARAMS))
        return 2;
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

void api_scales_register(lua_State *L)
{
    static const luaL_Reg fns[] = {{"medians", l_medians}, {"trend", l_trend}, {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
