/* Allocation interposition and the table of blocks the MPI library holds.
 *
 * The real allocator is found with dlsym(RTLD_NEXT); while dlsym itself allocates, requests are
 * served from a small static arena. All tables are mmap'd once at mem_start and never grow:
 *   live   open addressing: block address → size and site index (MAX_LIVE blocks)
 *   sites  open addressing: call site → counters (MAX_SITES sites)
 *   filter counts of live blocks per hashed address: a free whose bucket is 0 skips the lock. */
#include "memory.h"

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "event.h"

#define MAX_LIVE (1u << 15)
#define MAX_SITES (1u << 12)
#define FILTER (1u << 17)

struct live {
    uintptr_t ptr;      /* 0 empty, 1 deleted */
    uint64_t size : 48, site : 16;
};

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*mmap)(void *, size_t, int, int, int, off_t);
    int (*munmap)(void *, size_t);
} real;

static atomic_int resolving;
static atomic_int tracking;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct live *live;
static struct mem_site *sites;
static _Atomic uint16_t *filter;
static uint32_t nlive;
static int64_t live_total, high_water;
static uint64_t untracked;

/* ---- bootstrap arena for dlsym's own allocations ------------------------------------------ */

static _Alignas(16) char arena[1 << 16];
static size_t arena_used;

static int in_arena(const void *p)
{
    return (const char *)p >= arena && (const char *)p < arena + sizeof arena;
}

static void *arena_alloc(size_t n)
{
    size_t need = (n + 31) & ~(size_t)15;
    if (arena_used + need > sizeof arena)
        return NULL;
    char *p = arena + arena_used + 16;
    memcpy(p - 16, &n, sizeof n);
    arena_used += need;
    return p;
}

static size_t arena_size(const void *p)
{
    size_t n;
    memcpy(&n, (const char *)p - 16, sizeof n);
    return n;
}

static void resolve(void)
{
    atomic_store(&resolving, 1);
    real.malloc = dlsym(RTLD_NEXT, "malloc");
    real.calloc = dlsym(RTLD_NEXT, "calloc");
    real.realloc = dlsym(RTLD_NEXT, "realloc");
    real.free = dlsym(RTLD_NEXT, "free");
    real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real.memalign = dlsym(RTLD_NEXT, "memalign");
    real.mmap = dlsym(RTLD_NEXT, "mmap");
    real.munmap = dlsym(RTLD_NEXT, "munmap");
    atomic_store(&resolving, 0);
}

#define ENSURE(fn) \
    do { \
        if (__builtin_expect(!real.fn, 0)) \
            resolve(); \
    } while (0)

/* ---- tables ------------------------------------------------------------------------------- */

static uint32_t hash_ptr(uintptr_t p)
{
    uint64_t h = (uint64_t)p * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* Hashed by block address, not page: the application's blocks share pages with the
 * library's, and a free should reach the lock only for the library's blocks (and the few
 * that collide: live blocks / FILTER of them). */
static uint32_t filter_slot(uintptr_t p)
{
    return hash_ptr(p >> 4) & (FILTER - 1);
}

/* Index of the counters of site, created if missing; 0 (the overflow site) when full. */
static uint32_t site_index(uint64_t site)
{
    for (uint32_t i = hash_ptr(site) & (MAX_SITES - 1), n = 0; n < MAX_SITES;
         i = (i + 1) & (MAX_SITES - 1), n++) {
        if (i == 0)
            continue; /* slot 0 is the overflow site */
        if (sites[i].site == site)
            return i;
        if (sites[i].site == 0) {
            sites[i].site = site;
            return i;
        }
    }
    return 0;
}

static void record(void *p, size_t size, uint64_t site)
{
    pthread_mutex_lock(&lock);
    uint32_t s = site_index(site);
    sites[s].allocs++;
    sites[s].alloc_bytes += (int64_t)size;
    if (nlive >= MAX_LIVE / 4 * 3) {
        untracked++; /* its free cannot be matched: count it as allocated only */
        pthread_mutex_unlock(&lock);
        return;
    }
    uint32_t i = hash_ptr((uintptr_t)p) & (MAX_LIVE - 1);
    while (live[i].ptr > 1)
        i = (i + 1) & (MAX_LIVE - 1);
    live[i].ptr = (uintptr_t)p;
    live[i].size = size;
    live[i].site = s;
    nlive++;
    sites[s].live_bytes += (int64_t)size;
    live_total += (int64_t)size;
    if (live_total > high_water)
        high_water = live_total;
    atomic_fetch_add_explicit(&filter[filter_slot((uintptr_t)p)], 1, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
}

/* p is being released: if the MPI library's, charge the release back to its site. */
static void release(const void *p)
{
    uintptr_t key = (uintptr_t)p;
    if (!p || !filter ||
        !atomic_load_explicit(&filter[filter_slot(key)], memory_order_relaxed))
        return;
    pthread_mutex_lock(&lock);
    for (uint32_t i = hash_ptr(key) & (MAX_LIVE - 1);; i = (i + 1) & (MAX_LIVE - 1)) {
        if (live[i].ptr == 0)
            break;
        if (live[i].ptr == key) {
            struct mem_site *s = &sites[live[i].site];
            s->freed_bytes += (int64_t)live[i].size;
            s->live_bytes -= (int64_t)live[i].size;
            live_total -= (int64_t)live[i].size;
            live[i].ptr = 1;
            nlive--;
            atomic_fetch_sub_explicit(&filter[filter_slot(key)], 1, memory_order_relaxed);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* The site charged for an allocation made now on this thread, 0 for none. */
static inline uint64_t charged_site(void)
{
    if (!atomic_load_explicit(&tracking, memory_order_relaxed))
        return 0;
    struct ev_thread *t = ev_self;
    return t ? t->mem_site : 0;
}

/* ---- the interposed functions ------------------------------------------------------------- */

#pragma GCC visibility push(default)

void *malloc(size_t n)
{
    if (__builtin_expect(atomic_load_explicit(&resolving, memory_order_relaxed), 0))
        return arena_alloc(n);
    ENSURE(malloc);
    void *p = real.malloc(n);
    uint64_t site = charged_site();
    if (__builtin_expect(site != 0, 0) && p)
        record(p, n, site);
    return p;
}

void *calloc(size_t n, size_t size)
{
    if (__builtin_expect(atomic_load_explicit(&resolving, memory_order_relaxed), 0))
        return arena_alloc(n * size); /* static storage is zeroed */
    ENSURE(calloc);
    void *p = real.calloc(n, size);
    uint64_t site = charged_site();
    if (__builtin_expect(site != 0, 0) && p)
        record(p, n * size, site);
    return p;
}

void free(void *p)
{
    if (!p || in_arena(p))
        return;
    release(p);
    ENSURE(free);
    real.free(p);
}

void *realloc(void *p, size_t n)
{
    if (p && in_arena(p)) {
        void *q = malloc(n);
        if (q)
            memcpy(q, p, arena_size(p) < n ? arena_size(p) : n);
        return q;
    }
    ENSURE(realloc);
    release(p);
    void *q = real.realloc(p, n);
    uint64_t site = charged_site();
    if (__builtin_expect(site != 0, 0) && q)
        record(q, n, site);
    return q;
}

int posix_memalign(void **out, size_t align, size_t n)
{
    ENSURE(posix_memalign);
    int rc = real.posix_memalign(out, align, n);
    uint64_t site = charged_site();
    if (__builtin_expect(site != 0, 0) && rc == 0)
        record(*out, n, site);
    return rc;
}

void *aligned_alloc(size_t align, size_t n)
{
    ENSURE(aligned_alloc);
    void *p = real.aligned_alloc(align, n);
    uint64_t site = charged_site();
    if (__builtin_expect(site != 0, 0) && p)
        record(p, n, site);
    return p;
}

void *memalign(size_t align, size_t n)
{
    ENSURE(memalign);
    void *p = real.memalign(align, n);
    uint64_t site = charged_site();
    if (__builtin_expect(site != 0, 0) && p)
        record(p, n, site);
    return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    ENSURE(mmap);
    void *p = real.mmap(addr, len, prot, flags, fd, off);
    uint64_t site = (flags & MAP_ANONYMOUS) ? charged_site() : 0;
    if (__builtin_expect(site != 0, 0) && p != MAP_FAILED)
        record(p, len, site);
    return p;
}

int munmap(void *addr, size_t len)
{
    ENSURE(munmap);
    release(addr);
    return real.munmap(addr, len);
}

#pragma GCC visibility pop

/* ---- start, stop, results ----------------------------------------------------------------- */

static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&lock);
}

static void *table(size_t bytes)
{
    ENSURE(mmap);
    void *p = real.mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int mem_start(const char **why)
{
    /* Is the process's malloc the one in this object? (Not when another allocator is
     * preloaded first or linked into the program.) */
    Dl_info theirs, ours;
    if (!dladdr(dlsym(RTLD_DEFAULT, "malloc"), &theirs) || !dladdr((void *)mem_start, &ours) ||
        theirs.dli_fbase != ours.dli_fbase) {
        *why = "another malloc (e.g. jemalloc or tcmalloc, preloaded first) replaces tardy's";
        return -1;
    }
    if (!live) {
        live = table(MAX_LIVE * sizeof *live);
        sites = table(MAX_SITES * sizeof *sites);
        filter = table(FILTER * sizeof *filter);
        if (!live || !sites || !filter) {
            *why = "no memory for its tables";
            return -1;
        }
        pthread_atfork(fork_prepare, fork_done, fork_done);
    }
    atomic_store(&tracking, 1);
    return 0;
}

void mem_stop(void)
{
    atomic_store(&tracking, 0);
}

int mem_snapshot(struct mem_site **out)
{
    *out = NULL;
    if (!sites)
        return 0;
    /* Allocate before locking: free() takes the same lock. */
    struct mem_site *copy = malloc(MAX_SITES * sizeof *copy);
    if (!copy)
        return -1;
    int n = 0;
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < MAX_SITES; i++)
        if (sites[i].allocs) {
            copy[n] = sites[i];
            if (i == 0)
                copy[n].site = UINT64_MAX; /* the overflow site */
            n++;
        }
    pthread_mutex_unlock(&lock);
    *out = copy;
    return n;
}

int64_t mem_live_total(void)
{
    return live_total;
}

int64_t mem_high_water(void)
{
    return high_water;
}

uint64_t mem_untracked(void)
{
    return untracked;
}
