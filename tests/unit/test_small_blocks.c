/* lua/small_blocks.c: Lua's small blocks from free lists. A freed block is the next of its
 * size, a resize keeps the contents across the small and the large sizes, a block stays put
 * when its size class does not change, and the pool serves a Lua state through a script that
 * makes and drops a million tables. */
#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lua/small_blocks.h"

static void reuse_and_resize(void)
{
    struct small_blocks p = {0};
    char *a = small_realloc(&p, NULL, LUA_TTABLE, 40), *b = small_realloc(&p, NULL, 0, 40);
    CHECK(a && b && a != b);
    small_realloc(&p, a, 40, 0);
    CHECK(small_realloc(&p, NULL, 0, 33) == a); /* 33 and 40 bytes: one class */
    CHECK(small_realloc(&p, a, 33, 48) == a);   /* still that class */
    memset(a, 'a', 48);
    char *big = small_realloc(&p, a, 48, 1000); /* to malloc, the contents along */
    CHECK(big && big[0] == 'a' && big[47] == 'a');
    big[999] = 'z';
    char *back = small_realloc(&p, big, 1000, 100); /* and back into a class */
    CHECK(back && back[0] == 'a' && back[47] == 'a');
    CHECK(small_realloc(&p, NULL, 0, 48) == a); /* a's block was freed when it grew */
    small_realloc(&p, back, 100, 0);
    small_realloc(&p, b, 40, 0);
    small_release(&p);
    CHECK(p.slabs == NULL);
}

static void *alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    return small_realloc(ud, ptr, osize, nsize);
}

static void lua_state(void)
{
    struct small_blocks p = {0};
    lua_State *L = lua_newstate(alloc, &p);
    CHECK(L != NULL);
    luaL_openlibs(L);
    const char *script =
        "local keep, sum = {}, 0\n"
        "for i = 1, 1000000 do\n"
        "  local t = {x = {p = i}, y = i * 0.5, name = 'row ' .. i}\n"
        "  if i % 1000 == 0 then keep[#keep + 1] = t end\n"
        "end\n"
        "for _, t in ipairs(keep) do sum = sum + t.x.p + #t.name end\n"
        "return sum, #keep";
    CHECK(luaL_dostring(L, script) == LUA_OK);
    CHECK_INT(lua_tointeger(L, -1), 1000);
    /* sum of p over 1000, 2000, ..., 10^6 and of the names' lengths */
    long names = 0;
    for (long i = 1000; i <= 1000000; i += 1000)
        names += 4 + (i < 10000 ? 4 : i < 100000 ? 5 : i < 1000000 ? 6 : 7);
    CHECK_INT(lua_tointeger(L, -2), 500500000 + names);
    lua_close(L);
    small_release(&p);
}

int main(void)
{
    reuse_and_resize();
    lua_state();
    CHECK_DONE();
}
