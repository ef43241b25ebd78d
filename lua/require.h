/* tardy.require(name): the shipped Lua libraries that policies and families share. */
#ifndef TARDY_LUA_REQUIRE_H
#define TARDY_LUA_REQUIRE_H

#include <lua.h>

/* Add require to the global `tardy` of L, loading from dir/NAME.lua. */
void require_open(lua_State *L, const char *dir);

#endif
