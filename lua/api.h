/* The `tardy` module table seen by Lua scripts (API version TARDY_LUA_API): run objects
 * (read-only userdata over reduced profiles), registration of model families, policies and
 * the init hook, and the fitting primitives of predict/ (api_fit.c). Documented in
 * docs/lua-api.md. */
#ifndef TARDY_LUA_API_H
#define TARDY_LUA_API_H

#include <lua.h>

#include "tool/profile/profile.h"

#define TARDY_LUA_API 1

/* Define the global `tardy` in L for the given runs (oldest first; the last may be the
 * current run, flagged by current_last). The profiles must outlive L. */
void api_open(lua_State *L, const struct profile *runs, int nruns, int current_last);

/* Replace the runs tardy.runs() returns (same contract as api_open). */
void api_set_runs(lua_State *L, const struct profile *runs, int nruns, int current_last);

/* Push the registered family table (name → spec) or policy function; nil when unknown. */
void api_push_family(lua_State *L, const char *name);
void api_push_policy(lua_State *L, const char *name);

/* Push the function tardy.on_init registered, or nil. */
void api_push_init_hook(lua_State *L);

/* Push the hook's ctx for the job starting: {p, params, program, cvars (job's control
 * variables), runs (as tardy.runs())}. */
void api_push_init_ctx(lua_State *L, const struct profile *job);

/* Append the names of the registered policies, comma separated, to buf. */
void api_policy_names(lua_State *L, char *buf, size_t len);

/* Fitting primitives (lua/api_fit.c): adds them to the table at the top of the stack. */
void api_fit_register(lua_State *L);

/* The parameters that vary over the n points of the table at index pts (numbers in their x
 * tables), their names (of fewer than 32 bytes) into names[API_MAX_VARYING], "p" first, then
 * by name; returns how many. */
#define API_MAX_VARYING 8
int api_varying(lua_State *L, int pts, int n, char names[][32]);

/* When np > max: pushes nil and the reason a model of at most max parameters cannot stand
 * for the np varying ones (a Lua function's two results) and returns 2; else 0, nothing
 * pushed. */
int api_too_many(lua_State *L, int np, char names[][32], int max);

/* tardy.scalaextrap and tardy.cacheprofile (lua/api_forms.c): adds them to the table at the
 * top of the stack. */
void api_forms_register(lua_State *L);

/* tardy.medians and tardy.trend (lua/api_scales.c): adds them to the table at the top of the
 * stack. */
void api_scales_register(lua_State *L);

/* tardy.points_for (lua/api_points.c): adds it to the table at the top of the stack. */
void api_points_register(lua_State *L);

#endif
