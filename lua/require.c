/* tardy.require(name): a shipped Lua library (<script dir>/lib/NAME.lua), run once per Lua
 * state and its value kept, as Lua's own require does for modules. The sandbox has no
 * package library (it would open any file), so this one reads only that directory and only
 * names of letters, digits and '_'. */
#include "require.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#define LIBS "tardy.libs"   /* registry: name -> the library's value, or LOADING */
#define LOADING "tardy.libs.loading"

static int valid(const char *name)
{
    if (!*name)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

static int api_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (!valid(name))
        return luaL_error(L, "tardy.require: '%s' is not a library name (letters, digits, _)",
                          name);
    lua_getfield(L, LUA_REGISTRYINDEX, LIBS);
    int libs = lua_gettop(L);
    lua_getfield(L, libs, name);
    if (lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), LOADING))
        return luaL_error(L, "tardy.require: library '%s' requires itself (a cycle)", name);
    if (!lua_isnil(L, -1))
        return 1;
    lua_pop(L, 1);
    const char *path = lua_pushfstring(L, "%s/%s.lua", lua_tostring(L, lua_upvalueindex(1)),
                                       name);
    FILE *f = fopen(path, "r");
    if (!f)
        return luaL_error(L, "tardy.require: no library '%s' (%s cannot be opened)", name, path);
    fclose(f);
    lua_pushliteral(L, LOADING);
    lua_setfield(L, libs, name);
    if (luaL_loadfilex(L, path, "t") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        lua_pushnil(L); /* not loaded: the next require tries again and says why */
        lua_setfield(L, libs, name);
        return lua_error(L);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1); /* a library that returns nothing: true, as in Lua */
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, libs, name);
    return 1;
}

void require_open(lua_State *L, const char *dir)
{
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, LIBS);
    lua_getglobal(L, "tardy");
    lua_pushstring(L, dir);
    lua_pushcclosure(L, api_require, 1);
    lua_setfield(L, -2, "require");
    lua_pop(L, 1);
}
