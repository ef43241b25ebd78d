/* The Lua sandbox: a Lua 5.4 state with only base, string, table, math and utf8, text chunks
 * only, reading an undefined global is an error, a memory cap, and an instruction budget that
 * pcall cannot swallow (once spent, every further instruction raises the error again). */
#ifndef TARDY_LUA_SANDBOX_H
#define TARDY_LUA_SANDBOX_H

#include <stddef.h>

#include <lua.h>

struct sandbox;

/* A new sandbox with mem_cap bytes and budget VM instructions; NULL when out of memory. */
struct sandbox *lsb_new(size_t mem_cap, long budget);
void lsb_free(struct sandbox *s);
lua_State *lsb_state(struct sandbox *s);

/* Give the script a fresh instruction budget (before each top-level call). */
void lsb_rearm(struct sandbox *s, long budget);

/* Forbid creating new globals and reading undefined ones; call after the host has defined
 * its own globals. */
void lsb_seal(struct sandbox *s);

/* Run the file at path (text only) in the sandbox. Returns 0, or -1 with "file:line: message"
 * and a traceback in err. */
int lsb_dofile(struct sandbox *s, const char *path, char *err, size_t errlen);

/* lua_pcall with a traceback handler: function and nargs arguments on the stack. Returns 0,
 * or -1 with the message and traceback in err (the stack is then as before the function). */
int lsb_call(struct sandbox *s, int nargs, int nresults, char *err, size_t errlen);

#endif
