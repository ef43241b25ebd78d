/* Lua sandbox (after Redis's scripting sandbox): allow-listed libraries, capped allocator,
 * count hook that re-arms every instruction once the budget is spent. */
#include "sandbox.h"
#include "small_blocks.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOOK_STEP 10000

struct sandbox {
    lua_State *L;
    size_t used, cap;
    struct small_blocks blocks;
    long budget;
    int spent;
};

/* Under AddressSanitizer every block stays a malloc of its own, for the sanitizer to watch. */
static void *lsb_blocks(struct sandbox *s, void *ptr, size_t osize, size_t nsize)
{
#ifdef __SANITIZE_ADDRESS__
    (void)s;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
#else
    return small_realloc(&s->blocks, ptr, osize, nsize);
#endif
}

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct sandbox *s = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        lsb_blocks(s, ptr, osize, 0);
        s->used -= old;
        return NULL;
    }
    if (nsize > old && s->used + (nsize - old) > s->cap)
        return NULL; /* Lua raises "not enough memory" */
    void *p = lsb_blocks(s, ptr, osize, nsize);
    if (p)
        s->used = s->used - old + nsize;
    return p;
}

static struct sandbox *owner(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* Raise msg at the line the script is executing ("file:line: msg"). */
static int fail_here(lua_State *L, const char *msg)
{
    lua_Debug ar;
    if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0)
        lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
    else
        lua_pushstring(L, msg);
    return lua_error(L); /* not luaL_error: that would prefix another position */
}

/* Every HOOK_STEP instructions: the budget, and the memory cap less an eighth (so that a
 * script growing step by step is stopped at a line of its own; a single allocation past the
 * cap still fails with "not enough memory"). The cap is on what the script holds: near it, a
 * full collection first, for garbage not yet collected is most of the heap between cycles
 * (600 Extra-P series held 14 MB and reached a cap of 32 MB). */
static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    struct sandbox *s = owner(L);
    if (!s->spent) {
        s->budget -= HOOK_STEP;
        if (s->used > s->cap - s->cap / 8)
            lua_gc(L, LUA_GCCOLLECT);
        if (s->used > s->cap - s->cap / 8)
            fail_here(L, "Lua memory cap reached (TARDY_LUA_MEMORY)");
        if (s->budget > 0)
            return;
        s->spent = 1;
        /* From now on every instruction fails, so a pcall in the script cannot go on. */
        lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    }
    fail_here(L, "instruction budget exhausted (endless loop?)");
}

void lsb_rearm(struct sandbox *s, long budget)
{
    s->budget = budget;
    s->spent = 0;
    lua_sethook(s->L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
}

/* load(chunk [, name]) for text chunks only: bytecode can crash the VM. */
static int text_load(lua_State *L)
{
    size_t len;
    const char *code = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "=(load)");
    if (luaL_loadbufferx(L, code, len, name, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    return 1;
}

/* print(...) → stderr, prefixed, so script output never mixes with the application's. */
static int stderr_print(lua_State *L)
{
    int n = lua_gettop(L);
    fputs("tardy lua:", stderr);
    for (int i = 1; i <= n; i++)
        fprintf(stderr, " %s", luaL_tolstring(L, i, NULL)), lua_pop(L, 1);
    fputc('\n', stderr);
    return 0;
}

static int undefined_global(lua_State *L)
{
    return luaL_error(L, "undefined global '%s'", luaL_checkstring(L, 2));
}

static int new_global(lua_State *L)
{
    return luaL_error(L, "assignment to undeclared global '%s' (use local)",
                      luaL_checkstring(L, 2));
}

static void open_allowed(lua_State *L)
{
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},
                                    {LUA_STRLIBNAME, luaopen_string},
                                    {LUA_TABLIBNAME, luaopen_table},
                                    {LUA_MATHLIBNAME, luaopen_math},
                                    {LUA_UTF8LIBNAME, luaopen_utf8},
                                    {NULL, NULL}};
    for (const luaL_Reg *l = libs; l->name; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    static const char *const removed[] = {"dofile", "loadfile", "collectgarbage", NULL};
    for (const char *const *r = removed; *r; r++) {
        lua_pushnil(L);
        lua_setglobal(L, *r);
    }
    lua_pushcfunction(L, text_load);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, stderr_print);
    lua_setglobal(L, "print");
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
}

struct sandbox *lsb_new(size_t mem_cap, long budget)
{
    struct sandbox *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cap = mem_cap;
    s->L = lua_newstate(capped_alloc, s);
    if (!s->L) {
        small_release(&s->blocks);
        free(s);
        return NULL;
    }
    open_allowed(s->L);
    lsb_rearm(s, budget);
    return s;
}

void lsb_free(struct sandbox *s)
{
    if (!s)
        return;
    lua_close(s->L);
    small_release(&s->blocks);
    free(s);
}

lua_State *lsb_state(struct sandbox *s)
{
    return s->L;
}

void lsb_seal(struct sandbox *s)
{
    lua_State *L = s->L;
    lua_pushglobaltable(L);
    lua_newtable(L);
    lua_pushcfunction(L, undefined_global);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, new_global);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int lsb_call(struct sandbox *s, int nargs, int nresults, char *err, size_t errlen)
{
    lua_State *L = s->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    if (rc != LUA_OK) {
        snprintf(err, errlen, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

int lsb_dofile(struct sandbox *s, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    fclose(f);
    if (luaL_loadfilex(s->L, path, "t") != LUA_OK) {
        snprintf(err, errlen, "%s", lua_tostring(s->L, -1));
        lua_pop(s->L, 1);
        return -1;
    }
    return lsb_call(s, 0, 0, err, errlen);
}
