/* The `tardy` module table seen by Lua scripts (API version TARDY_LUA_API): run objects
 * (read-only userdata over reduced profiles), registration of model families and policies,
 * and the fitting primitives of predict/ (api_fit.c). Documented in docs/lua-api.md. */
#ifndef TARDY_LUA_API_H
#define TARDY_LUA_API_H

#include <lua.h>

#include "profile.h"

#define TARDY_LUA_API 1

/* Define the global `tardy` in L for the given runs (oldest first; the last may be the
 * current run, flagged by current_last). The profiles must outlive L. */
void api_open(lua_State *L, const struct profile *runs, int nruns, int current_last);

/* Push the registered family table (name → spec) or policy function; nil when unknown. */
void api_push_family(lua_State *L, const char *name);
void api_push_policy(lua_State *L, const char *name);

/* Append the names of the registered policies, comma separated, to buf. */
void api_policy_names(lua_State *L, char *buf, size_t len);

/* Fitting primitives (lua/api_fit.c): adds them to the table at the top of the stack. */
void api_fit_register(lua_State *L);

#endif
