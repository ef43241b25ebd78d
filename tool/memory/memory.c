/* Allocation interposition and the table of blocks the MPI library holds.
 *
 * The real allocator is found with dlsym(RTLD_NEXT); while dlsym itself allocates (on that
 * thread), requests are served from a small static arena. The tables are mmap'd at
 * mem_start; only the live table grows, by doubling under the lock, up to MAX_LIVE (its
 * pages are touched at random: at its bound from the start, it held 0.5 MiB of every rank's
 * memory where the library holds 1,600 blocks):
 *   live   linear probing, deletion by backward shift (no tombstones): block → size and site
 *   sites  open addressing: call site → counters (MAX_SITES sites)
 *   filter counts of the live blocks per hashed address: a free whose bucket is 0 skips the
 *          lock. One byte each, written under the lock; a count that reaches 255 stays there
 *          (its frees take the lock, as a collision's do).
 * With one thread in MPI, its newest blocks of one site stay on the thread first, outside the
 * tables and the filter (see "blocks kept on the thread").
 * A forked child gets a fresh lock and charges nothing more (it is not the MPI process).
 * UCX may patch our mmap family at run time; memory_ucm.c then sees those calls for us. */
#include "memory.h"

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tool/core/core.h"
#include "memory_int.h"

#define MAX_LIVE (1u << 15)
#define FIRST_LIVE (1u << 12)
#define MAX_SITES (1u << 12)
#define FILTER (1u << 17)
#define NO_SITE UINT32_MAX

struct live {
    uintptr_t ptr; /* 0 empty */
    uint64_t size : 47, site : 16, map : 1; /* map: an anonymous mapping (listed in maps) */
};

#define MAX_MAPS 1024
#define KEPT 8

/* The room's state. The first fields are read by every allocation and free of every thread;
 * the lock and what changes under it start a cache line of their own. */
static struct {
    struct {
        void *(*malloc)(size_t);
        void *(*calloc)(size_t, size_t);
        void *(*realloc)(void *, size_t);
        void (*free)(void *);
        int (*posix_memalign)(void **, size_t, size_t);
        void *(*aligned_alloc)(size_t, size_t);
        void *(*memalign)(size_t, size_t);
        void *(*reallocarray)(void *, size_t, size_t);
        void *(*valloc)(size_t);
        void *(*pvalloc)(size_t);
        void *(*mmap)(void *, size_t, int, int, int, off_t);
        int (*munmap)(void *, size_t);
        void *(*mremap)(void *, size_t, size_t, int, ...);
        void *(*shmat)(int, const void *, int);
        int (*shmdt)(const void *);
    } real;                      /* the allocator's functions, resolved on first use */
    atomic_int tracking;         /* between mem_start and mem_stop */
    int solo;                    /* one thread calls MPI: blocks are kept on it */
    struct live *live;
    uint32_t live_mask;          /* the live table's slots less one (lock held to change) */
    struct mem_site *sites;
    _Atomic uint8_t *filter;
    _Alignas(64) pthread_mutex_t lock;
    uint32_t nlive;
    int64_t live_total, high_water;
    uint64_t untracked;          /* blocks the live table had no room for: frees unmatched */
    /* Starts of the live entries that are mappings, so that a munmap of part of one can find
     * it (lock held; a mapping beyond MAX_MAPS is released only by a munmap from its start). */
    uintptr_t maps[MAX_MAPS];
    atomic_int nmaps;
    /* The bootstrap arena for dlsym's own allocations. */
    _Alignas(64) char arena[1 << 16];
    atomic_size_t arena_used;
} mem = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The calling thread's: inside dlsym (its allocations come from the arena), inside our mmap
 * family (UCM events are ours already), its blocks kept (see "blocks kept on the thread"). */
static _Thread_local struct {
    int resolving;
    int in_map;
    struct {
        int n;
        uint64_t site;
        uintptr_t ptr[KEPT];
        size_t size[KEPT];
        uint64_t allocs;
        int64_t alloc_bytes, freed_bytes, live, peak;
    } kept;
} self;

/* ---- bootstrap arena for dlsym's own allocations ------------------------------------------ */

static int in_arena(const void *p)
{
    return (const char *)p >= mem.arena && (const char *)p < mem.arena + sizeof mem.arena;
}

/* n bytes aligned to align (a power of two, at least 16), zeroed, its size stored in the 16
 * bytes before it. */
static void *arena_alloc(size_t n, size_t align)
{
    if (align < 16 || (align & (align - 1)) || n > sizeof mem.arena)
        return NULL;
    size_t need = 16 + n + align;
    size_t at = atomic_fetch_add(&mem.arena_used, need);
    if (at + need > sizeof mem.arena)
        return NULL;
    uintptr_t p = ((uintptr_t)mem.arena + at + 16 + align - 1) & ~(uintptr_t)(align - 1);
    memcpy((char *)p - 16, &n, sizeof n);
    return (void *)p;
}

static size_t arena_size(const void *p)
{
    size_t n;
    memcpy(&n, (const char *)p - 16, sizeof n);
    return n;
}

static void resolve(void)
{
    self.resolving = 1;
    mem.real.malloc = dlsym(RTLD_NEXT, "malloc");
    mem.real.calloc = dlsym(RTLD_NEXT, "calloc");
    mem.real.realloc = dlsym(RTLD_NEXT, "realloc");
    mem.real.free = dlsym(RTLD_NEXT, "free");
    mem.real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    mem.real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    mem.real.memalign = dlsym(RTLD_NEXT, "memalign");
    mem.real.reallocarray = dlsym(RTLD_NEXT, "reallocarray");
    mem.real.valloc = dlsym(RTLD_NEXT, "valloc");
    mem.real.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
    mem.real.mmap = dlsym(RTLD_NEXT, "mmap");
    mem.real.munmap = dlsym(RTLD_NEXT, "munmap");
    mem.real.mremap = dlsym(RTLD_NEXT, "mremap");
    mem.real.shmat = dlsym(RTLD_NEXT, "shmat");
    mem.real.shmdt = dlsym(RTLD_NEXT, "shmdt");
    self.resolving = 0;
}

#define ENSURE(fn) \
    do { \
        if (__builtin_expect(!mem.real.fn, 0)) \
            resolve(); \
    } while (0)

/* ---- tables ------------------------------------------------------------------------------- */

static uint32_t hash_ptr(uintptr_t p)
{
    uint64_t h = (uint64_t)p * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

static uint32_t home(uintptr_t p)
{
    return hash_ptr(p) & mem.live_mask;
}

/* Hashed by block address, not page: the application's blocks share pages with the
 * library's, and a free should reach the lock only for the library's blocks (and the few
 * that collide: live blocks / FILTER of them). */
static uint32_t filter_slot(uintptr_t p)
{
    return hash_ptr(p >> 4) & (FILTER - 1);
}

/* Count a live block of address p in (+1) or out (-1) of its filter bucket (lock held: one
 * writer at a time, so a load and a store; frees read the buckets without the lock). */
static void filter_add(uintptr_t p, int by)
{
    _Atomic uint8_t *b = &mem.filter[filter_slot(p)];
    unsigned v = atomic_load_explicit(b, memory_order_relaxed);
    if (v < UINT8_MAX && (by > 0 || v > 0))
        atomic_store_explicit(b, (uint8_t)(v + by), memory_order_relaxed);
}

/* Index of the counters of site, created if missing; 0 (the overflow site) when full. */
static uint32_t site_index(uint64_t site)
{
    for (uint32_t i = hash_ptr(site) & (MAX_SITES - 1), n = 0; n < MAX_SITES;
         i = (i + 1) & (MAX_SITES - 1), n++) {
        if (i == 0)
            continue; /* slot 0 is the overflow site */
        if (mem.sites[i].site == site)
            return i;
        if (mem.sites[i].site == 0) {
            mem.sites[i].site = site;
            return i;
        }
    }
    return 0;
}

/* Slot of key in the live table, or the empty slot that ends its probe (lock held; the table
 * is at most 3/4 full, so an empty slot exists). */
static uint32_t live_slot(uintptr_t key)
{
    uint32_t i = home(key);
    while (mem.live[i].ptr && mem.live[i].ptr != key)
        i = (i + 1) & mem.live_mask;
    return i;
}

/* Remove slot i, moving later entries of the probe run back so no probe crosses a hole. */
static void live_delete(uint32_t i)
{
    for (uint32_t j = i;;) {
        mem.live[i].ptr = 0;
        for (;;) {
            j = (j + 1) & mem.live_mask;
            if (!mem.live[j].ptr)
                return;
            uint32_t h = home(mem.live[j].ptr);
            /* entry j may move to i unless its home lies cyclically in (i, j] */
            if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
                break;
        }
        mem.live[i] = mem.live[j];
        i = j;
    }
}

static void map_forget(uintptr_t p)
{
    int n = atomic_load_explicit(&mem.nmaps, memory_order_relaxed);
    for (int k = 0; k < n; k++)
        if (mem.maps[k] == p) {
            mem.maps[k] = mem.maps[n - 1];
            atomic_store_explicit(&mem.nmaps, n - 1, memory_order_relaxed);
            return;
        }
}

/* Charge the release of the entry at slot i to its site (lock held). */
static void live_release(uint32_t i)
{
    if (mem.live[i].map)
        map_forget(mem.live[i].ptr);
    struct mem_site *s = &mem.sites[mem.live[i].site];
    s->freed_bytes += (int64_t)mem.live[i].size;
    s->live_bytes -= (int64_t)mem.live[i].size;
    mem.live_total -= (int64_t)mem.live[i].size;
    filter_add(mem.live[i].ptr, -1);
    mem.nlive--;
    live_delete(i);
}

/* A table of its own, zeroed (the real mmap: not charged). */
static void *table(size_t bytes)
{
    ENSURE(mmap);
    void *p = mem.real.mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Double the live table, up to MAX_LIVE (lock held): 1 if it grew. Its mappings are tardy's
 * own (in_map: a hook of the MPI library's that sees them skips them). */
static int live_grow(void)
{
    uint32_t slots = mem.live_mask + 1;
    if (slots >= MAX_LIVE)
        return 0;
    int in_map = self.in_map;
    self.in_map = 1;
    struct live *old = mem.live, *grown = table(2 * (size_t)slots * sizeof *grown);
    if (grown) {
        mem.live = grown;
        mem.live_mask = 2 * slots - 1;
        for (uint32_t i = 0; i < slots; i++)
            if (old[i].ptr)
                mem.live[live_slot(old[i].ptr)] = old[i];
        mem.real.munmap(old, slots * sizeof *old);
    }
    self.in_map = in_map;
    return grown != NULL;
}

/* A new block p of size bytes charged to the counters at index s (lock held). */
static void insert(void *p, size_t size, uint32_t s)
{
    mem.sites[s].allocs++;
    mem.sites[s].alloc_bytes += (int64_t)size;
    if (mem.nlive >= (mem.live_mask + 1) / 4 * 3 && !live_grow()) {
        mem.untracked++; /* its free cannot be matched: count it as allocated only */
        return;
    }
    uint32_t i = live_slot((uintptr_t)p);
    if (mem.live[i].ptr) {
        /* still listed: released by a path we do not see (munmap of part of a mapping);
         * charge that release now */
        live_release(i);
        i = live_slot((uintptr_t)p);
    }
    mem.live[i].ptr = (uintptr_t)p;
    mem.live[i].size = size;
    mem.live[i].site = s;
    mem.nlive++;
    mem.sites[s].live_bytes += (int64_t)size;
    mem.live_total += (int64_t)size;
    if (mem.live_total > mem.high_water)
        mem.high_water = mem.live_total;
    filter_add((uintptr_t)p, 1);
}

static void record(void *p, size_t size, uint64_t site)
{
    pthread_mutex_lock(&mem.lock);
    insert(p, size, site_index(site));
    pthread_mutex_unlock(&mem.lock);
}

/* ---- blocks kept on the thread ------------------------------------------------------------- */

/* Most of what the MPI library allocates it frees within a call or two (MPICH's 1-double
 * MPI_Allreduce: one block per call). When one thread makes all MPI calls (up to
 * MPI_THREAD_FUNNELED), its newest blocks of one site and that site's counters stay on the
 * thread, without the lock, and go into the tables when another site allocates, when more
 * are kept than fit, when such a block is resized or unmapped, and before the tables are
 * read. They are self.kept, at most KEPT of them. */

/* Move the kept blocks and counters into the tables. */
static void unkeep(void)
{
    if (!self.kept.allocs)
        return;
    pthread_mutex_lock(&mem.lock);
    uint32_t s = site_index(self.kept.site);
    if (mem.live_total + self.kept.peak > mem.high_water)
        mem.high_water = mem.live_total + self.kept.peak;
    mem.sites[s].allocs += self.kept.allocs - (uint64_t)self.kept.n;
    mem.sites[s].alloc_bytes += self.kept.alloc_bytes - self.kept.live;
    mem.sites[s].freed_bytes += self.kept.freed_bytes;
    for (int i = 0; i < self.kept.n; i++)
        insert((void *)self.kept.ptr[i], self.kept.size[i], s);
    pthread_mutex_unlock(&mem.lock);
    self.kept.n = 0;
    self.kept.allocs = 0;
    self.kept.alloc_bytes = self.kept.freed_bytes = self.kept.live = self.kept.peak = 0;
}

void mem_solo(int yes)
{
    mem.solo = yes;
}

/* A new block of the running call at site. */
static inline void charge(void *p, size_t size, uint64_t site)
{
    if (!mem.solo) {
        record(p, size, site);
        return;
    }
    if (self.kept.allocs && (self.kept.site != site || self.kept.n == KEPT))
        unkeep();
    self.kept.site = site;
    self.kept.ptr[self.kept.n] = (uintptr_t)p;
    self.kept.size[self.kept.n++] = size;
    self.kept.allocs++;
    self.kept.alloc_bytes += (int64_t)size;
    self.kept.live += (int64_t)size;
    if (self.kept.live > self.kept.peak)
        self.kept.peak = self.kept.live;
}

/* p's index among the kept blocks, or -1. */
static int kept_block(const void *p)
{
    for (int i = 0; i < self.kept.n; i++)
        if (self.kept.ptr[i] == (uintptr_t)p)
            return i;
    return -1;
}

/* Release kept block i. */
static void kept_free(int i)
{
    self.kept.freed_bytes += (int64_t)self.kept.size[i];
    self.kept.live -= (int64_t)self.kept.size[i];
    self.kept.n--;
    self.kept.ptr[i] = self.kept.ptr[self.kept.n];
    self.kept.size[i] = self.kept.size[self.kept.n];
}

/* insert() for an anonymous mapping: also listed in maps (lock held). */
static void insert_map(void *p, size_t size, uint32_t s)
{
    insert(p, size, s);
    uint32_t i = live_slot((uintptr_t)p);
    int n = atomic_load_explicit(&mem.nmaps, memory_order_relaxed);
    if (mem.live[i].ptr && n < MAX_MAPS) {
        mem.live[i].map = 1;
        mem.maps[n] = (uintptr_t)p;
        atomic_store_explicit(&mem.nmaps, n + 1, memory_order_relaxed);
    }
}

static void record_map(void *p, size_t size, uint64_t site)
{
    pthread_mutex_lock(&mem.lock);
    insert_map(p, size, site_index(site));
    pthread_mutex_unlock(&mem.lock);
}

/* munmap(lo, len): the part of each listed mapping inside [lo, lo + len) is released and
 * charged to its site; the parts before and after it stay live, charged to the same site. */
static void unmap_range(uintptr_t lo, size_t len)
{
    if (!atomic_load_explicit(&mem.nmaps, memory_order_relaxed))
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), hi = lo + ((len + page - 1) & ~(page - 1));
    pthread_mutex_lock(&mem.lock);
    for (int k = 0; k < atomic_load_explicit(&mem.nmaps, memory_order_relaxed); k++) {
        uintptr_t m = mem.maps[k];
        uint32_t i = live_slot(m);
        uintptr_t end = m + mem.live[i].size;
        if (!mem.live[i].ptr || end <= lo || m >= hi)
            continue;
        uint32_t s = mem.live[i].site;
        live_release(i); /* maps[k] now holds another mapping: look at k again */
        k--;
        /* the pieces that stay mapped are not new allocations, nor freed */
        uintptr_t piece[2][2] = {{m, m < lo ? lo : m}, {end > hi ? hi : end, end}};
        for (int j = 0; j < 2; j++) {
            size_t n = piece[j][1] - piece[j][0];
            if (!n)
                continue;
            insert_map((void *)piece[j][0], n, s);
            mem.sites[s].allocs--;
            mem.sites[s].alloc_bytes -= (int64_t)n;
            mem.sites[s].freed_bytes -= (int64_t)n;
        }
    }
    pthread_mutex_unlock(&mem.lock);
}

/* release() of a block listed in the tables (lock taken here): out of line, so that the
 * common frees (a kept block, or not the library's) pay no prologue for the lock path. */
static __attribute__((noinline)) uint32_t release_listed(uintptr_t key, size_t *size)
{
    uint32_t site = NO_SITE;
    pthread_mutex_lock(&mem.lock);
    uint32_t i = live_slot(key);
    if (mem.live[i].ptr) {
        site = mem.live[i].site;
        if (size)
            *size = mem.live[i].size;
        live_release(i);
    }
    pthread_mutex_unlock(&mem.lock);
    return site;
}

/* p is being released: if the MPI library's, charge the release back to the site that
 * allocated it. Returns that site's index (and the block's size in *size), or NO_SITE. */
static inline uint32_t release(const void *p, size_t *size)
{
    uintptr_t key = (uintptr_t)p;
    /* the kept blocks first: they are not in the filter (no locked instruction for them) */
    int k = self.kept.n ? kept_block(p) : -1;
    if (k >= 0 && !size) { /* freed */
        kept_free(k);
        return NO_SITE;
    }
    if (k >= 0) /* resized: through the tables */
        unkeep();
    if (!p || !mem.filter ||
        !atomic_load_explicit(&mem.filter[filter_slot(key)], memory_order_relaxed))
        return NO_SITE;
    return release_listed(key, size);
}

/* Undo release(p) after the real call failed and p is still the library's. */
static void unrelease(void *p, size_t size, uint32_t s)
{
    pthread_mutex_lock(&mem.lock);
    insert(p, size, s);
    mem.sites[s].allocs--;
    mem.sites[s].alloc_bytes -= (int64_t)size;
    mem.sites[s].freed_bytes -= (int64_t)size;
    pthread_mutex_unlock(&mem.lock);
}

/* The site charged for an allocation made now on this thread, 0 for none. */
static inline uint64_t charged_site(void)
{
    if (!atomic_load_explicit(&mem.tracking, memory_order_relaxed))
        return 0;
    struct ev_thread *t = ev_self;
    return t ? t->mem_site : 0;
}

/* A block replacing a released one (realloc, mremap: map): charged to the running call, or,
 * outside MPI, to the site of the block it replaces (old, NO_SITE when that was not the
 * library's). */
static void record_resized(void *q, size_t n, uint32_t old, int map)
{
    uint64_t site = charged_site();
    if (site) {
        (map ? record_map : record)(q, n, site);
    } else if (old != NO_SITE && atomic_load_explicit(&mem.tracking, memory_order_relaxed)) {
        pthread_mutex_lock(&mem.lock);
        (map ? insert_map : insert)(q, n, old);
        pthread_mutex_unlock(&mem.lock);
    }
}

/* ---- the interposed functions ------------------------------------------------------------- */

/* The allocator fn, declared (params) and called (call) with these arguments, whose block of
 * n bytes is charged to the running MPI call: out of line, so that the common case outside
 * MPI (RETURN_CHARGED) is a tail call with no frame of its own. */
#define CHARGED_ALLOCATOR(fn, params, call, n) \
    static __attribute__((noinline)) void *fn##_charged params \
    { \
        ENSURE(fn); \
        uint64_t site_ = charged_site(); \
        void *p_ = mem.real.fn call; \
        if (p_ && site_) \
            charge(p_, (n), site_); \
        return p_; \
    }

CHARGED_ALLOCATOR(malloc, (size_t n), (n), n)
CHARGED_ALLOCATOR(calloc, (size_t n, size_t size), (n, size), n * size)
CHARGED_ALLOCATOR(aligned_alloc, (size_t align, size_t n), (align, n), n)
CHARGED_ALLOCATOR(memalign, (size_t align, size_t n), (align, n), n)
CHARGED_ALLOCATOR(valloc, (size_t n), (n), n)
CHARGED_ALLOCATOR(pvalloc, (size_t n), (n), n)

/* Return fn's block for these arguments: the real allocator's when it is resolved and no MPI
 * call runs on this thread (the site read first: the real allocator enters none). */
#define RETURN_CHARGED(fn, call) \
    do { \
        if (__builtin_expect(mem.real.fn && !charged_site(), 1)) \
            return mem.real.fn call; \
        return fn##_charged call; \
    } while (0)

/* Every allocation of the program runs these: each starts on a cache line of its own, so that
 * their cost does not move with where the linker places them (make bench's malloc/free row
 * read +3 and +6 ns per pair for two builds that ran the same instructions; docs/design.md 4). */
#define ENTRY_POINT __attribute__((aligned(64)))

#pragma GCC visibility push(default)

ENTRY_POINT void *malloc(size_t n)
{
    if (__builtin_expect(self.resolving, 0))
        return arena_alloc(n, 16);
    RETURN_CHARGED(malloc, (n));
}

ENTRY_POINT void *calloc(size_t n, size_t size)
{
    if (__builtin_expect(self.resolving, 0))
        return size && n > SIZE_MAX / size ? NULL : arena_alloc(n * size, 16);
    RETURN_CHARGED(calloc, (n, size));
}

ENTRY_POINT void free(void *p)
{
    if (!p || in_arena(p))
        return;
    release(p, NULL);
    ENSURE(free);
    mem.real.free(p);
}

ENTRY_POINT void *realloc(void *p, size_t n)
{
    if (p && in_arena(p)) {
        void *q = malloc(n);
        if (q)
            memcpy(q, p, arena_size(p) < n ? arena_size(p) : n);
        return q;
    }
    if (__builtin_expect(self.resolving, 0))
        return arena_alloc(n, 16);
    ENSURE(realloc);
    size_t old_size = 0;
    uint32_t old = release(p, &old_size);
    void *q = mem.real.realloc(p, n);
    if (q)
        record_resized(q, n, old, 0);
    else if (old != NO_SITE && n)
        unrelease(p, old_size, old); /* failed: p is unchanged */
    return q;
}

void *reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        ENSURE(reallocarray);
        return mem.real.reallocarray(p, n, size); /* the real one sets errno */
    }
    return realloc(p, n * size);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (__builtin_expect(self.resolving, 0))
        return (*out = arena_alloc(n, align)) ? 0 : 12 /* ENOMEM */;
    ENSURE(posix_memalign);
    uint64_t site = charged_site();
    int rc = mem.real.posix_memalign(out, align, n);
    if (__builtin_expect(site != 0, 0) && rc == 0)
        charge(*out, n, site);
    return rc;
}

void *aligned_alloc(size_t align, size_t n)
{
    if (__builtin_expect(self.resolving, 0))
        return arena_alloc(n, align);
    RETURN_CHARGED(aligned_alloc, (align, n));
}

void *memalign(size_t align, size_t n)
{
    if (__builtin_expect(self.resolving, 0))
        return arena_alloc(n, align);
    RETURN_CHARGED(memalign, (align, n));
}

void *valloc(size_t n)
{
    if (__builtin_expect(self.resolving, 0))
        return arena_alloc(n, 4096);
    RETURN_CHARGED(valloc, (n));
}

void *pvalloc(size_t n)
{
    if (__builtin_expect(self.resolving, 0))
        return arena_alloc(n, 4096);
    RETURN_CHARGED(pvalloc, (n));
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (__builtin_expect(!mem.real.mmap && self.resolving, 0))
        return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    ENSURE(mmap);
    self.in_map = 1;
    void *p = mem.real.mmap(addr, len, prot, flags, fd, off);
    self.in_map = 0;
    uint64_t site = charged_site();
    if ((flags & MAP_ANONYMOUS) && __builtin_expect(site != 0, 0) && p != MAP_FAILED)
        record_map(p, len, site);
    return p;
}

/* 64-bit off_t already: the same function under its large-file name. */
_Static_assert(sizeof(off_t) == 8, "mmap64 is an alias of mmap only with a 64-bit off_t");
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));

int munmap(void *addr, size_t len)
{
    if (__builtin_expect(!mem.real.munmap && self.resolving, 0))
        return (int)syscall(SYS_munmap, addr, len);
    ENSURE(munmap);
    unmap_range((uintptr_t)addr, len);
    self.in_map = 1;
    int rc = mem.real.munmap(addr, len);
    self.in_map = 0;
    return rc;
}

void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    void *want = (flags & MREMAP_FIXED) ? va_arg(ap, void *) : NULL;
    va_end(ap);
    ENSURE(mremap);
    size_t size = 0;
    uint32_t site = release(old, &size);
    self.in_map = 1;
    void *p = mem.real.mremap(old, old_len, len, flags, want);
    self.in_map = 0;
    if (site == NO_SITE)
        return p; /* not the library's anonymous memory */
    if (p != MAP_FAILED)
        record_resized(p, len, site, 1);
    else
        unrelease(old, size, site);
    return p;
}

/* System V shared memory the library creates for itself (a receive pool that peers write
 * into: UCX's sysv transport buffers unexpected messages there). Segments other processes
 * created are theirs, not this process's. */
void *shmat(int id, const void *addr, int flags)
{
    ENSURE(shmat);
    self.in_map = 1;
    void *p = mem.real.shmat(id, addr, flags);
    self.in_map = 0;
    mem_charge_shm(p, id);
    return p;
}

int shmdt(const void *addr)
{
    ENSURE(shmdt);
    release(addr, NULL);
    self.in_map = 1;
    int rc = mem.real.shmdt(addr);
    self.in_map = 0;
    return rc;
}

#pragma GCC visibility pop

/* ---- calls seen through UCX's memory hooks (memory_ucm.c) ---------------------------------- */

int mem_in_map(void)
{
    return self.in_map;
}

void mem_charge_map(void *p, size_t len)
{
    uint64_t site = charged_site();
    if (__builtin_expect(site != 0, 0) && p)
        record_map(p, len, site);
}

void mem_unmap(const void *p, size_t len)
{
    unmap_range((uintptr_t)p, len);
}

void mem_charge_shm(void *p, int id)
{
    uint64_t site = charged_site();
    struct shmid_ds ds;
    if (__builtin_expect(site != 0, 0) && p != (void *)-1 && shmctl(id, IPC_STAT, &ds) == 0 &&
        ds.shm_cpid == getpid())
        record(p, ds.shm_segsz, site);
}

void mem_release(const void *p)
{
    release(p, NULL);
}

/* ---- start, stop, results ----------------------------------------------------------------- */

static void fork_child(void)
{
    pthread_mutex_init(&mem.lock, NULL); /* another thread may have held it at the fork */
    atomic_store(&mem.tracking, 0);
    self.kept.n = 0;
    self.kept.allocs = 0;
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
    if (!mem.live) {
        mem.live = table(FIRST_LIVE * sizeof *mem.live);
        mem.live_mask = FIRST_LIVE - 1;
        mem.sites = table(MAX_SITES * sizeof *mem.sites);
        mem.filter = table(FILTER * sizeof *mem.filter);
        if (!mem.live || !mem.sites || !mem.filter) {
            *why = "no memory for its tables";
            return -1;
        }
        pthread_atfork(NULL, NULL, fork_child);
        mem_ucm_attach();
    }
    atomic_store(&mem.tracking, 1);
    return 0;
}

void mem_stop(void)
{
    atomic_store(&mem.tracking, 0);
}

int mem_snapshot(struct mem_site **out)
{
    *out = NULL;
    if (!mem.sites)
        return 0;
    /* Allocate before locking: free() takes the same lock. */
    struct mem_site *copy = malloc(MAX_SITES * sizeof *copy);
    if (!copy)
        return -1;
    unkeep();
    int n = 0;
    pthread_mutex_lock(&mem.lock);
    for (uint32_t i = 0; i < MAX_SITES; i++)
        if (mem.sites[i].allocs) {
            copy[n] = mem.sites[i];
            if (i == 0)
                copy[n].site = UINT64_MAX; /* the overflow site */
            n++;
        }
    pthread_mutex_unlock(&mem.lock);
    *out = copy;
    return n;
}

int64_t mem_live_total(void)
{
    unkeep();
    return mem.live_total;
}

int64_t mem_high_water(void)
{
    unkeep();
    return mem.high_water;
}

uint64_t mem_untracked(void)
{
    return mem.untracked;
}
