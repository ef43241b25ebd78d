/* Rank-independent keys of call sites and regions. Call-path ids are local to a process and
 * raw PCs differ with ASLR, so a site's key hashes the MPI function with each frame's
 * module name and module-relative address; equal code gives equal keys on every rank.
 * Keys are computed once per call path and cached. */
#include "ws_data.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#else
#define ANNOTATE_BENIGN_RACE_SIZED(addr, size, why) ((void)0)
#endif

#include "tool/core/core.h"
#include "tool/base/base.h"

/* The keys of call paths, per call-path id (0: not computed yet). */
static struct {
    _Atomic uint64_t *cp;
    uint32_t n;
} keys;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xFF51AFD7ED558CCDull;
    return h ^ (h >> 33);
}

static uint64_t str_hash(uint64_t h, const char *s)
{
    const char *slash = strrchr(s, '/');
    for (s = slash ? slash + 1 : s; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
    return h;
}

static uint64_t path_key(uint32_t cp)
{
    const uintptr_t *pcs;
    int n = cs_frames(cp, &pcs);
    uint64_t h = 0xCBF29CE484222325ull;
    for (int i = 0; i < n; i++) {
        Dl_info info;
        if (dladdr((void *)pcs[i], &info) && info.dli_fname) {
            h = str_hash(h, info.dli_fname);
            h = mix(h, pcs[i] - (uintptr_t)info.dli_fbase);
        } else {
            h = mix(h, pcs[i]);
        }
    }
    return h | 1;
}

uint64_t ws_site_key(uint64_t site)
{
    uint32_t cp = SITE_CP(site);
    uint64_t k;
    if (cp == CS_NONE || cp == CS_OVERFLOW) {
        k = cp + 1;
    } else {
        if (cp >= keys.n)
            return mix(SITE_FN(site), cp);
        k = atomic_load_explicit(&keys.cp[cp], memory_order_relaxed);
        if (!k) {
            k = path_key(cp);
            atomic_store_explicit(&keys.cp[cp], k, memory_order_relaxed);
        }
    }
    return mix(SITE_FN(site), k) & ~WS_KEY_MPI;
}

uint64_t ws_key_pair(uint64_t from_key, uint64_t to_key)
{
    return mix(from_key, to_key) & ~WS_KEY_MPI;
}

uint64_t ws_region_key(uint64_t from, uint64_t to)
{
    return ws_key_pair(ws_site_key(from), ws_site_key(to));
}

void ws_keys_init(void)
{
    if (!keys.cp && (keys.cp = calloc((size_t)cfg.max_callpaths + 2, sizeof *keys.cp))) {
        keys.n = (uint32_t)cfg.max_callpaths + 2;
        /* Threads fill the cache with relaxed atomics, each writing the key every other
         * would: no race in C11, but helgrind does not model atomics (ci/threads). */
        ANNOTATE_BENIGN_RACE_SIZED(keys.cp, keys.n * sizeof *keys.cp,
                                   "call-path keys: idempotent relaxed atomic cache");
    }
}
