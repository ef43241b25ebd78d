/* Prediction engine: sandbox set-up, script loading, the policy and init hook calls and the
 * checks of their results. */
#include "engine.h"

#include <dirent.h>
#include <dlfcn.h>
#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "require.h"
#include "sandbox.h"
#include "predict/predict.h"
#include "tool/base/base.h"

struct engine {
    struct sandbox *s;
    const struct engine_opts *o;
};

const char *engine_script_dir(void)
{
    static char dir[PATH_MAX];
    Dl_info info;
    if (dir[0])
        return dir;
    const char *self = NULL;
    char exe[PATH_MAX];
    if (dladdr((void *)engine_script_dir, &info) && info.dli_fname && strchr(info.dli_fname, '/'))
        self = info.dli_fname;
    if (!self) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        self = exe;
    }
    char *real = realpath(self, NULL);
    const char *path = real ? real : self;
    const char *slash = strrchr(path, '/');
    int len = slash ? (int)(slash - path) : 0;
    snprintf(dir, sizeof dir, "%.*s/../share/tardy/lua", len, path);
    free(real);
    return dir;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every *.lua file of dir, in name order. */
static int load_dir(struct sandbox *s, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot open the shipped scripts in %s", dir);
        return -1;
    }
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".lua"))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (rc == 0 && lsb_dofile(s, path, err, errlen) < 0)
            rc = -1;
        free(names[i]);
    }
    return rc;
}

/* A sandbox with the API, the shipped families and policies (and their libraries, loaded on
 * demand) and the user's script. */
static struct sandbox *load_all(const struct engine_opts *o, const struct profile *runs,
                                int nruns, int current_last, char *err, size_t errlen)
{
    struct sandbox *s = lsb_new(o->mem_cap, o->budget);
    if (!s) {
        snprintf(err, errlen, "cannot create the Lua state (out of memory)");
        return NULL;
    }
    char dir[PATH_MAX + 16];
    const char *base = engine_script_dir();
    api_open(lsb_state(s), runs, nruns, current_last);
    snprintf(dir, sizeof dir, "%s/lib", base);
    require_open(lsb_state(s), dir);
    lsb_seal(s);
    snprintf(dir, sizeof dir, "%s/families", base);
    int rc = load_dir(s, dir, err, errlen);
    snprintf(dir, sizeof dir, "%s/policies", base);
    if (rc == 0)
        rc = load_dir(s, dir, err, errlen);
    if (rc == 0 && o->user_script && *o->user_script)
        rc = lsb_dofile(s, o->user_script, err, errlen);
    if (rc < 0) {
        lsb_free(s);
        return NULL;
    }
    return s;
}

struct engine *engine_open(const struct engine_opts *o, char *err, size_t errlen)
{
    struct engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->o = o;
    e->s = load_all(o, NULL, 0, 0, err, errlen);
    if (!e->s) {
        free(e);
        return NULL;
    }
    return e;
}

void engine_close(struct engine *e)
{
    if (!e)
        return;
    lsb_free(e->s);
    free(e);
}

int engine_check_policy(struct engine *e, char *err, size_t errlen)
{
    lua_State *L = lsb_state(e->s);
    const char *name = e->o->policy && *e->o->policy ? e->o->policy : "default";
    api_push_policy(L, name);
    int ok = lua_isfunction(L, -1);
    lua_pop(L, 1);
    if (!ok) {
        char names[512];
        api_policy_names(L, names, sizeof names);
        snprintf(err, errlen, "no policy named '%s' (known: %s)", name, names);
    }
    return ok ? 0 : -1;
}

int engine_has_init_hook(struct engine *e)
{
    lua_State *L = lsb_state(e->s);
    api_push_init_hook(L);
    int yes = lua_isfunction(L, -1);
    lua_pop(L, 1);
    return yes;
}

/* "file:line: what" for the function at the top of the stack (left there), to name in an
 * error about what it returned. */
static void where_defined(lua_State *L, const char *what, char *where, size_t len)
{
    lua_Debug ar;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">S", &ar);
    snprintf(where, len, "%s:%d: %s", ar.short_src, ar.linedefined, what);
}

/* One setting of the hook's result (key at -2, value at -1) as NAME=VALUE into out; -1 with
 * err when the key is not a name or the value not a string, number or boolean. */
static int setting(lua_State *L, const char *where, struct strbuf *out, char *err,
                   size_t errlen)
{
    if (lua_type(L, -2) != LUA_TSTRING) {
        snprintf(err, errlen, "%s returned a setting whose key is a %s, not the name of a "
                 "control variable", where, luaL_typename(L, -2));
        return -1;
    }
    const char *name = lua_tostring(L, -2);
    if (!*name || strpbrk(name, "=,\n")) {
        snprintf(err, errlen, "%s returned a setting for '%.200s', which is not the name of a "
                 "control variable", where, name);
        return -1;
    }
    int type = lua_type(L, -1);
    double x = type == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    if (type == LUA_TSTRING && !strchr(lua_tostring(L, -1), '\n'))
        sb_printf(out, "%s=%s\n", name, lua_tostring(L, -1));
    else if (type == LUA_TNUMBER && lua_isinteger(L, -1))
        sb_printf(out, "%s=%lld\n", name, (long long)lua_tointeger(L, -1));
    else if (type == LUA_TNUMBER && isfinite(x))
        sb_printf(out, "%s=%.17g\n", name, x);
    else if (type == LUA_TBOOLEAN)
        sb_printf(out, "%s=%d\n", name, lua_toboolean(L, -1));
    else {
        snprintf(err, errlen, "%s returned %.200s = %s%s; a value is a string (one line), a "
                 "finite number or a boolean", where, name,
                 type == LUA_TNUMBER ? "" : "a ", type == LUA_TNUMBER ? "a non-finite number"
                                                                     : luaL_typename(L, -1));
        return -1;
    }
    return 0;
}

static int by_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The hook's result (top of the stack) as "NAME=VALUE" lines sorted by name into *settings
 * (NULL for nil or an empty table). */
static int take_settings(lua_State *L, const char *where, char **settings, char *err,
                         size_t errlen)
{
    if (lua_isnil(L, -1))
        return 0;
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s returned a %s, not a table {NAME = value} of control "
                 "variable settings (or nil)", where, luaL_typename(L, -1));
        return -1;
    }
    struct strbuf lines;
    sb_init(&lines);
    int t = lua_gettop(L), n = 0, rc = 0;
    lua_pushnil(L);
    while (rc == 0 && lua_next(L, t)) {
        rc = setting(L, where, &lines, err, errlen);
        n++;
        lua_pop(L, 1);
    }
    if (rc < 0) {
        lua_settop(L, t);
        sb_free(&lines);
        return -1;
    }
    /* Sorted, so every run of the same script writes in the same order. */
    char **line = calloc((size_t)n + 1, sizeof *line), *save;
    struct strbuf out;
    sb_init(&out);
    int k = 0;
    for (char *l = lines.data ? strtok_r(lines.data, "\n", &save) : NULL; l && line;
         l = strtok_r(NULL, "\n", &save))
        line[k++] = l;
    if (line)
        qsort(line, (size_t)k, sizeof *line, by_line);
    for (int i = 0; line && i < k; i++)
        sb_printf(&out, "%s%s", i ? "\n" : "", line[i]);
    free(line);
    sb_free(&lines);
    if (!line || out.failed) {
        sb_free(&out);
        snprintf(err, errlen, "%s: out of memory", where);
        return -1;
    }
    *settings = out.data;
    return 0;
}

int engine_init_hook(struct engine *e, const struct profile *job, const struct profile *runs,
                     int nruns, char **settings, char *err, size_t errlen)
{
    lua_State *L = lsb_state(e->s);
    char where[600];
    *settings = NULL;
    api_set_runs(L, runs, nruns, 0);
    api_push_init_hook(L);
    where_defined(L, "tardy.on_init hook", where, sizeof where);
    api_push_init_ctx(L, job);
    lsb_rearm(e->s, e->o->budget);
    if (lsb_call(e->s, 1, 1, err, errlen) < 0)
        return -1;
    int rc = take_settings(L, where, settings, err, errlen);
    lua_pop(L, 1);
    return rc;
}

/* One target "p=4096, n=8192" into the table on top; -1 with err: a pair that is not
 * name=number, a name given twice, p below 1 (the runs' p is a rank count). */
static int push_target(lua_State *L, char *item, char *err, size_t errlen)
{
    char *whole = strdup(item), *save, *name = NULL, *value = NULL;
    if (!whole) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const char *why = NULL;
    for (char *kv = strtok_r(item, ",", &save); kv && !why; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        name = value = str_trim(kv);
        if (eq) {
            *eq = '\0';
            name = str_trim(kv);
            value = str_trim(eq + 1);
        }
        double v = 0;
        if (!eq || !*name || !decimal_number(value, &v)) {
            why = "is not name=number";
            if (eq)
                *eq = '='; /* the pair as given */
            name = str_trim(kv);
            value = NULL;
            continue;
        }
        int given = lua_getfield(L, -1, name) != LUA_TNIL;
        lua_pop(L, 1);
        if (given)
            why = "names a parameter given before";
        else if (!strcmp(name, "p") && !(v >= 1 && v <= 1e9)) /* a curve's p lies between */
            why = "is no rank count (1 to 1e9)";
        else {
            lua_pushnumber(L, v);
            lua_setfield(L, -2, name);
        }
    }
    if (why && value)
        snprintf(err, errlen, "target '%s': '%s=%s' %s", whole, name, value, why);
    else if (why)
        snprintf(err, errlen, "target '%s': '%s' %s", whole, name, why);
    free(whole);
    return why ? -1 : 0;
}

/* Push ctx.targets from "p=1024;p=4096,n=8192"; -1 with err on a malformed target. */
static int push_targets(lua_State *L, const char *text, char *err, size_t errlen)
{
    lua_newtable(L);
    int n = 0;
    const char *s = text ? text : "";
    while (*s) {
        size_t len = strcspn(s, ";");
        char *item = strndup(s, len);
        if (!item) {
            snprintf(err, errlen, "out of memory");
            lua_pop(L, 1);
            return -1;
        }
        if (*str_trim(item)) {
            lua_newtable(L);
            if (push_target(L, item, err, errlen) < 0) {
                free(item);
                lua_pop(L, 2);
                return -1;
            }
            lua_rawseti(L, -2, ++n);
        }
        free(item);
        s += len + (s[len] == ';');
    }
    return 0;
}

static char *field_string(lua_State *L, int idx, const char *key)
{
    lua_getfield(L, idx, key);
    char *v = lua_type(L, -1) == LUA_TSTRING ? strdup(lua_tostring(L, -1)) : NULL;
    lua_pop(L, 1);
    return v;
}

/* A prediction's optional number key into *v (NAN when absent): 0, or -1 with err naming
 * the key when it holds something else (a policy's typo shown as it is, not left out). */
static int optional_number(lua_State *L, int idx, const char *key, double *v, const char *where,
                           char *err, size_t errlen)
{
    int type = lua_getfield(L, idx, key);
    *v = type == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
    lua_pop(L, 1);
    if (type == LUA_TNUMBER || type == LUA_TNIL)
        return 0;
    snprintf(err, errlen, "%s %s is a %s, not a number", where, key, lua_typename(L, type));
    return -1;
}

/* The number keys of prediction e into q, each of its type and range. */
static int take_numbers(lua_State *L, int e, struct prof_prediction *q, const char *where,
                        char *err, size_t errlen)
{
    if (optional_number(L, e, "value", &q->value, where, err, errlen) < 0 ||
        optional_number(L, e, "fit_error", &q->fit_error, where, err, errlen) < 0 ||
        optional_number(L, e, "uncertainty", &q->uncertainty, where, err, errlen) < 0 ||
        optional_number(L, e, "low", &q->low, where, err, errlen) < 0 ||
        optional_number(L, e, "high", &q->high, where, err, errlen) < 0 ||
        optional_number(L, e, "coverage", &q->coverage, where, err, errlen) < 0)
        return -1;
    const char *bad = q->fit_error < 0     ? "fit_error %g is below 0 (a percent error)"
                      : q->uncertainty < 0 ? "uncertainty %g is below 0 (a percent)"
                      : q->low > q->high   ? "low %g is above high"
                                           : NULL;
    double what = q->fit_error < 0 ? q->fit_error : q->uncertainty < 0 ? q->uncertainty : q->low;
    if (!bad && q->low <= q->high && !(q->coverage > 0 && q->coverage < 100)) {
        bad = isnan(q->coverage) ? "low and high without coverage (a percent)"
                                 : "coverage %g is not a percent between 0 and 100";
        what = q->coverage;
    }
    if (bad) {
        char text[200];
        snprintf(text, sizeof text, bad, what);
        snprintf(err, errlen, "%s %s", where, text);
        return -1;
    }
    if (!(q->low <= q->high))
        q->low = q->high = q->coverage = NAN; /* an interval needs both ends and coverage */
    return 0;
}

/* The target table of a prediction as "p=1024,n=8192" (keys sorted). */
static char *target_string(lua_State *L, int idx)
{
    char *keys[32], out[512] = "";
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx) && n < 32) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER)
            keys[n++] = strdup(lua_tostring(L, -2));
        lua_pop(L, 1);
    }
    qsort(keys, (size_t)n, sizeof *keys, by_name);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        lua_getfield(L, idx, keys[i]);
        used += (size_t)snprintf(out + used, sizeof out - used, "%s%s=%.10g", i ? "," : "",
                                 keys[i], lua_tonumber(L, -1));
        lua_pop(L, 1);
        free(keys[i]);
        if (used >= sizeof out)
            break;
    }
    return strdup(out);
}

/* Check the policy's result (at the top of the stack) and copy it into p; policy names the
 * policy and where it is defined, for the errors. */
static int take_predictions(lua_State *L, const char *policy, struct profile *p, char *err,
                            size_t errlen)
{
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s returned a %s, not a list of predictions", policy,
                 luaL_typename(L, -1));
        return -1;
    }
    int t = lua_gettop(L);
    lua_Integer n = luaL_len(L, t);
    p->predictions = calloc((size_t)n + 1, sizeof *p->predictions);
    if (!p->predictions)
        return -1;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, t, i);
        int e = lua_gettop(L);
        struct prof_prediction *q = &p->predictions[p->npredictions];
        if (!lua_istable(L, e) || lua_getfield(L, e, "target") != LUA_TTABLE) {
            snprintf(err, errlen, "%s: prediction %lld is not a table with a target "
                     "table", policy, (long long)i);
            return -1;
        }
        q->target = target_string(L, lua_gettop(L));
        lua_pop(L, 1);
        q->metric = field_string(L, e, "metric");
        q->family = field_string(L, e, "family");
        q->model = field_string(L, e, "model");
        char whose[700];
        snprintf(whose, sizeof whose, "%s: prediction %lld:", policy, (long long)i);
        if (take_numbers(L, e, q, whose, err, errlen) < 0) {
            p->npredictions++; /* its strings are freed with the profile */
            return -1;
        }
        lua_getfield(L, e, "extrapolated");
        q->extrapolated = lua_toboolean(L, -1);
        lua_pop(L, 2);
        p->npredictions++;
        if (!q->metric || !q->family || !q->model || !isfinite(q->value)) {
            snprintf(err, errlen, "%s: prediction %lld needs metric, family, model "
                     "(strings) and a finite value", policy, (long long)i);
            return -1;
        }
    }
    return 0;
}

int engine_predict(const struct engine_opts *o, const struct profile *runs, int nruns,
                   int current_last, struct profile *into, char *err, size_t errlen)
{
    if (lapack_load(err, errlen) < 0) /* the fits would fail one by one */
        return -1;
    struct sandbox *s = load_all(o, runs, nruns, current_last, err, errlen);
    if (!s)
        return -1;
    lua_State *L = lsb_state(s);
    const char *name = o->policy && *o->policy ? o->policy : "default";
    int rc = -1;
    api_push_policy(L, name);
    if (!lua_isfunction(L, -1)) {
        char names[512];
        api_policy_names(L, names, sizeof names);
        snprintf(err, errlen, "no policy named '%s' (known: %s)", name, names);
        goto out;
    }
    char where[600], what[300];
    snprintf(what, sizeof what, "policy '%.200s'", name);
    where_defined(L, what, where, sizeof where);
    lua_newtable(L); /* ctx */
    lua_getglobal(L, "tardy");
    lua_getfield(L, -1, "runs");
    lua_remove(L, -2);
    if (lsb_call(s, 0, 1, err, errlen) < 0)
        goto out;
    lua_setfield(L, -2, "runs");
    if (push_targets(L, o->targets, err, errlen) < 0)
        goto out;
    lua_setfield(L, -2, "targets");
    lsb_rearm(s, o->budget);
    if (lsb_call(s, 1, 1, err, errlen) < 0)
        goto out;
    rc = take_predictions(L, where, into, err, errlen);
    int note = rc == 0 ? lua_getfield(L, -1, "note") : LUA_TNIL;
    if (note == LUA_TSTRING)
        into->prediction_note = strdup(lua_tostring(L, -1));
    else if (note != LUA_TNIL) {
        snprintf(err, errlen, "%s: note is a %s, not a string", where, lua_typename(L, note));
        rc = -1;
    }
out:
    lsb_free(s);
    return rc;
}
