/* The points a prediction at a target may use, for Lua:
 *   tardy.points_for(points, target) → points, held | nil, reason
 * Runs that cannot tell the effects of two things apart are neither pooled nor extrapolated:
 * - a parameter the points hold at two values only has no law two values could tell apart
 *   (PMNF needs three, and a family of one parameter would take it for the scale); pooled,
 *   its two groups average into one flat curve of the others (halo3d at 1 and 2 ranks over
 *   block sizes: MPI_Waitall 0.1 ms with messages to itself, 6 ms to another rank, predicted
 *   0.1 ms for both). A target at one of the two values uses the points at that value
 *   (held "p=2"); at another value there is no prediction, nor at another value of a
 *   parameter the points hold at one (a metric only runs of 2 ranks have, as their wait
 *   states, says nothing of how it changes with p);
 * - a parameter that changed with another in every run as a power law (n = 16·p: a weak-
 *   scaling series) adds nothing a model could separate: fitted on both, PMNF splits the
 *   trend between them at random (5 + n/p, 2 + n²/1000p, 1 + n/100 along n = 16·p erred up to
 *   21% at p = 64; Extra-P up to 80%). A target on that line is predicted from the other
 *   alone (held "n~p"), a target off it not at all.
 * held is "" when all points serve as they are. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

#define MAX_PARAMS 16
#define ON_LINE 0.01 /* how far (in log) a value may lie from the line and be on it */

struct param {
    const char *name;
    double target;
    double *v; /* per point; NaN where the point has no number */
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct param *)a)->name, ((const struct param *)b)->name);
}

/* Append "sep" and the formatted text to buf (of len bytes), cut at its end. */
static void append(char *buf, size_t len, const char *sep, const char *fmt, const char *a,
                   const char *b)
{
    size_t at = strlen(buf);
    if (at + 1 < len)
        snprintf(buf + at, len - at, "%s", at ? sep : "");
    at = strlen(buf);
    if (at + 1 < len)
        snprintf(buf + at, len - at, fmt, a, b);
}

/* How many values v holds over the kept points (keep NULL: all), counted up to 3; the
 * smaller and the larger of the first two in *first and *second. */
static int distinct(const double *v, const unsigned char *keep, int n, double *first,
                    double *second)
{
    double a = NAN, b = NAN;
    int count = 0;
    for (int i = 0; i < n && count < 3; i++) {
        if ((keep && !keep[i]) || v[i] != v[i] || v[i] == a || v[i] == b)
            continue;
        if (count == 0)
            a = v[i];
        else if (count == 1)
            b = v[i];
        count++;
    }
    if (first)
        *first = a < b || count == 1 ? a : b;
    if (second)
        *second = a < b ? b : a;
    return count;
}

/* The parameters held at one or two values (above): keep[] the points at the target's value;
 * -1 and why when the target lies elsewhere. */
static int held_values(const struct param *pr, int np, int n, unsigned char *keep,
                       const char *at, char *held, size_t hlen, char *why, size_t wlen)
{
    for (int k = 0; k < np; k++) {
        double lo, hi, t = pr[k].target;
        int count = distinct(pr[k].v, NULL, n, &lo, &hi);
        if (count == 0 || count == 3 || (count == 1 && t == lo))
            continue;
        if (t != lo && t != hi) {
            if (count == 1)
                snprintf(why, wlen, "no prediction at %s: the runs with it have %s=%.17g only",
                         at, pr[k].name, lo);
            else
                snprintf(why, wlen, "no prediction at %s: the runs have %s at two values only "
                         "(%.17g and %.17g), too few for a law of %s", at, pr[k].name, lo, hi,
                         pr[k].name);
            return -1;
        }
        for (int i = 0; i < n; i++)
            keep[i] &= pr[k].v[i] == t;
        char value[32];
        snprintf(value, sizeof value, "%.17g", t);
        append(held, hlen, ",", "%s=%s", pr[k].name, value);
    }
    return 0;
}

/* Over the kept points, b takes one value for each value of a and the other way round. */
static int one_to_one(const double *a, const double *b, const unsigned char *keep, int n)
{
    for (int i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        if (a[i] != a[i] || b[i] != b[i])
            return 0;
        for (int j = 0; j < i; j++)
            if (keep[j] && (a[i] == a[j]) != (b[i] == b[j]))
                return 0;
    }
    return 1;
}

/* b = e^c · a^k through the kept points, within ON_LINE; 0 when not (or a value is not
 * positive). */
static int power_law(const double *a, const double *b, const unsigned char *keep, int n,
                     double *c, double *k)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        if (!(a[i] > 0 && b[i] > 0))
            return 0;
        double x = log(a[i]), y = log(b[i]);
        sx += x, sy += y, sxx += x * x, sxy += x * y, m++;
    }
    double d = m * sxx - sx * sx;
    if (m < 3 || !(d > 0))
        return 0;
    *k = (m * sxy - sx * sy) / d;
    *c = (sy - *k * sx) / m;
    for (int i = 0; i < n; i++)
        if (keep[i] && fabs(log(b[i]) - *c - *k * log(a[i])) > ON_LINE)
            return 0;
    return 1;
}

/* The parameters that changed with another in every kept run (above): dropped[] them (the
 * one kept is p when p is one of the two, else the first by name); -1 and why when the
 * target lies off their line. */
static int on_lines(const struct param *pr, int np, int n, const unsigned char *keep,
                    unsigned char *dropped, const char *at, char *held, size_t hlen, char *why,
                    size_t wlen)
{
    int order[MAX_PARAMS], m = 0;
    for (int k = 0; k < np; k++)
        if (!strcmp(pr[k].name, "p"))
            order[m++] = k;
    for (int k = 0; k < np; k++)
        if (strcmp(pr[k].name, "p"))
            order[m++] = k;
    for (int x = 0; x < np; x++) {
        const struct param *a = &pr[order[x]];
        if (dropped[order[x]] || distinct(a->v, keep, n, NULL, NULL) < 3)
            continue;
        for (int y = x + 1; y < np; y++) {
            const struct param *b = &pr[order[y]];
            double c, k;
            /* the line first: a pass over the points, where one-to-one compares pairs */
            if (dropped[order[y]] || !power_law(a->v, b->v, keep, n, &c, &k) ||
                !one_to_one(a->v, b->v, keep, n))
                continue;
            if (!(a->target > 0 && b->target > 0 &&
                  fabs(log(b->target) - c - k * log(a->target)) <= ON_LINE)) {
                snprintf(why, wlen, "no prediction at %s: %s changed with %s in every run "
                         "(%s = %.4g·%s^%.3g), so no run tells their effects apart off that "
                         "line (on it at %s=%.17g: %s=%.4g)", at, b->name, a->name, b->name,
                         exp(c), a->name, k, a->name, a->target, b->name,
                         exp(c + k * log(a->target)));
                return -1;
            }
            dropped[order[y]] = 1;
            append(held, hlen, ",", "%s~%s", b->name, a->name);
        }
    }
    return 0;
}

/* The point at index idx without the x fields dropped: a new table with the point's fields. */
static void push_reduced(lua_State *L, int idx, const struct param *pr, int np,
                         const unsigned char *dropped)
{
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_newtable(L);
    lua_getfield(L, idx, "x");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        int drop = 0;
        for (int k = 0; k < np && lua_type(L, -2) == LUA_TSTRING; k++)
            drop |= dropped[k] && !strcmp(lua_tostring(L, -2), pr[k].name);
        if (drop) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -5); /* into the new x, below the old x and the key */
    }
    lua_pop(L, 1);
    lua_setfield(L, -2, "x");
}

static int l_points_for(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    int n = (int)luaL_len(L, 1), np = 0;
    struct param pr[MAX_PARAMS];
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER && np < MAX_PARAMS)
            pr[np++] = (struct param){lua_tostring(L, -2), lua_tonumber(L, -1), NULL};
        lua_pop(L, 1);
    }
    qsort(pr, (size_t)np, sizeof *pr, by_name);
    double *values = malloc(((size_t)np * n + 1) * sizeof *values);
    unsigned char *keep = malloc((size_t)n + MAX_PARAMS + 1), *dropped = keep + n;
    if (!values || !keep) {
        free(values);
        free(keep);
        return luaL_error(L, "out of memory");
    }
    memset(keep, 1, (size_t)n);
    memset(dropped, 0, MAX_PARAMS);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_getfield(L, -1, "x");
        luaL_checktype(L, -1, LUA_TTABLE);
        for (int k = 0; k < np; k++) {
            pr[k].v = values + (size_t)k * n;
            lua_getfield(L, -1, pr[k].name);
            pr[k].v[i] = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
            lua_pop(L, 1);
        }
        lua_pop(L, 2);
    }
    char at[512] = "", held[512] = "", why[1024];
    for (int k = 0; k < np; k++) {
        char value[32];
        snprintf(value, sizeof value, "%.17g", pr[k].target);
        append(at, sizeof at, ",", "%s=%s", pr[k].name, value);
    }
    if (held_values(pr, np, n, keep, at, held, sizeof held, why, sizeof why) < 0 ||
        on_lines(pr, np, n, keep, dropped, at, held, sizeof held, why, sizeof why) < 0) {
        free(values);
        free(keep);
        lua_pushnil(L);
        lua_pushstring(L, why);
        return 2;
    }
    int reduce = 0;
    for (int k = 0; k < np; k++)
        reduce |= dropped[k];
    lua_createtable(L, n, 0);
    for (int i = 0, m = 0; i < n; i++) {
        if (!keep[i])
            continue;
        lua_rawgeti(L, 1, i + 1);
        if (reduce) {
            push_reduced(L, lua_gettop(L), pr, np, dropped);
            lua_remove(L, -2);
        }
        lua_rawseti(L, -2, ++m);
    }
    free(values);
    free(keep);
    lua_pushstring(L, held);
    return 2;
}

void api_points_register(lua_State *L)
{
    lua_pushcfunction(L, l_points_for);
    lua_setfield(L, -2, "points_for");
}
