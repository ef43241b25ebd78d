/* Call-path capture (libunwind) and lock-free interning. */
#define UNW_LOCAL_ONLY
#include "core.h"

#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "path_cache.h"
#include "tool/base/base.h"

struct slot {
    _Atomic uint64_t hash; /* 0 = empty; published last */
    uint32_t id;
};

/* Executable text of some shared objects, found at cs_init. */
#define MAX_RANGES 16
struct text {
    struct {
        uintptr_t lo, hi;
    } range[MAX_RANGES];
    int n;
};

static struct {
    int depth, max;
    uint64_t mask;
    struct slot *slots;
    uintptr_t *pcs;          /* max × depth frames */
    uint8_t *len;            /* frames per id */
    _Atomic uint32_t count;
    pthread_mutex_t lock;
    atomic_int unwind_broken; /* libunwind failed: paths keep the calling site only (warned) */
    /* The MPI libraries, skipped above the wrapper (mpi_f08 → MPI_Send). */
    struct text mpi_text;
    /* The QMPI tools in the process (shared objects that name QMPI_Register_tool_name,
     * tardy included when it is one): frames skipped when no call site is known. Not the
     * program itself, even when tardy is linked into it from the static archive. */
    struct text tool_text;
} cs = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int is_mpi_library(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !strncmp(base, "libmpi", 6) || !strncmp(base, "libpmpi", 7) ||
           !strncmp(base, "libfmpich", 9) || !strncmp(base, "libopen-pal", 11) ||
           !strncmp(base, "libopen-rte", 11);
}

/* Does the object's dynamic string table mention name? */
static int mentions(const struct dl_phdr_info *info, const char *name)
{
    const char *strtab = NULL;
    size_t strsz = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        for (; d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_STRTAB) /* relocated by the loader, or not yet on some arches */
                strtab = (const char *)(d->d_un.d_ptr < info->dlpi_addr
                                            ? info->dlpi_addr + d->d_un.d_ptr : d->d_un.d_ptr);
            else if (d->d_tag == DT_STRSZ)
                strsz = d->d_un.d_val;
        }
    }
    return strtab && strsz && memmem(strtab, strsz, name, strlen(name) + 1);
}

static void add_text(const struct dl_phdr_info *info, struct text *t)
{
    for (int i = 0; i < info->dlpi_phnum && t->n < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            t->range[t->n].lo = info->dlpi_addr + ph->p_vaddr;
            t->range[t->n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            t->n++;
        }
    }
}

static int in_text(const struct text *t, uintptr_t pc)
{
    for (int i = 0; i < t->n; i++)
        if (pc >= t->range[i].lo && pc < t->range[i].hi)
            return 1;
    return 0;
}

/* The object holds this very code: tardy's library (preloaded or linked). */
static int holds_tardy(const struct dl_phdr_info *info)
{
    struct text t = {0};
    add_text(info, &t);
    return in_text(&t, (uintptr_t)holds_tardy);
}

static int collect_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (!info->dlpi_name || !info->dlpi_name[0]) /* the program (tardy linked in: its code) */
        return 0;
    if (is_mpi_library(info->dlpi_name))
        add_text(info, &cs.mpi_text);
    else if (holds_tardy(info) || mentions(info, "QMPI_Register_tool_name"))
        add_text(info, &cs.tool_text); /* tardy names no QMPI call where mpi.h lacks QMPI */
    return 0;
}

/* pc is in a tool's code (tardy's, or a QMPI tool stacked with it) or the MPI library's. */
static int in_tools_or_mpi(uintptr_t pc)
{
    return in_text(&cs.tool_text, pc) || in_text(&cs.mpi_text, pc);
}

int cs_init(int depth, int max_paths)
{
    cs.depth = depth;
    cs.max = max_paths;
    atomic_store(&cs.count, 2);
    if (depth == 0)
        return 0;
    uint64_t cap = 1;
    while (cap < 2 * (uint64_t)max_paths)
        cap <<= 1;
    cs.mask = cap - 1;
    /* calloc of this size maps fresh zero pages: only pages that are touched cost memory. */
    cs.slots = calloc(cap, sizeof *cs.slots);
    cs.pcs = calloc((size_t)max_paths * (size_t)depth, sizeof *cs.pcs);
    cs.len = calloc((size_t)max_paths, 1);
    if (!cs.slots || !cs.pcs || !cs.len) {
        cs_fini();
        cs.depth = 0;
        return -1;
    }
    pcache_init(depth);
    dl_iterate_phdr(collect_ranges, NULL);
    return 0;
}

void cs_fini(void)
{
    free(cs.slots);
    free(cs.pcs);
    free(cs.len);
    cs.slots = NULL;
    cs.pcs = NULL;
    cs.len = NULL;
}

static uint64_t hash_frames(const uintptr_t *pc, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= pc[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h | 1;
}

static int same(uint32_t id, const uintptr_t *pc, int n)
{
    return cs.len[id] == n && !memcmp(cs.pcs + (size_t)id * cs.depth, pc, n * sizeof *pc);
}

static uint32_t insert(uint64_t h, uint64_t idx, const uintptr_t *pc, int n)
{
    pthread_mutex_lock(&cs.lock);
    uint32_t id = CS_OVERFLOW;
    for (;; idx = (idx + 1) & cs.mask) {
        uint64_t sh = atomic_load_explicit(&cs.slots[idx].hash, memory_order_acquire);
        if (sh == h && same(cs.slots[idx].id, pc, n)) {
            id = cs.slots[idx].id;
            break;
        }
        if (sh == 0) {
            uint32_t next = atomic_load_explicit(&cs.count, memory_order_relaxed);
            if (next >= (uint32_t)cs.max)
                break;
            memcpy(cs.pcs + (size_t)next * cs.depth, pc, n * sizeof *pc);
            cs.len[next] = (uint8_t)n;
            cs.slots[idx].id = next;
            atomic_store_explicit(&cs.slots[idx].hash, h, memory_order_release);
            atomic_store_explicit(&cs.count, next + 1, memory_order_release);
            id = next;
            break;
        }
    }
    pthread_mutex_unlock(&cs.lock);
    return id;
}

/* Where the application's frames start among raw frames ip[0..n), innermost first, when no
 * call site is known (tardy as a QMPI tool): above the QMPI tools' frames (tardy's and those
 * stacked in front of it) and the MPI library's, which may come in any order. */
static int app_start(const unw_word_t *ip, int n)
{
    int i = 0;
    while (i < n && in_tools_or_mpi(ip[i]))
        i++;
    return i < n ? i : -1;
}

/* Fill pc[] with the application's frames starting at ra (or, when ra is NULL, where
 * app_start says), and slot[] with the stack address each was read from (the caller's stack
 * pointer minus one word: where its call instruction pushed the return address); returns how
 * many frames. */
static int unwind_from(void *ra, uintptr_t *pc, uintptr_t *slot)
{
    unw_context_t ctx;
    unw_cursor_t cur;
    unw_word_t ip[CS_MAX_DEPTH + 80], sp[CS_MAX_DEPTH + 80];
    int broken = atomic_load_explicit(&cs.unwind_broken, memory_order_relaxed);
    int n = 0, start = -1;
    if (!broken && unw_getcontext(&ctx) == 0 && unw_init_local(&cur, &ctx) == 0) {
        int limit = cs.depth + 80;
        while (n < limit && unw_step(&cur) > 0) {
            unw_get_reg(&cur, UNW_REG_IP, &ip[n]);
            unw_get_reg(&cur, UNW_REG_SP, &sp[n]);
            if (ra && start < 0 && ip[n] == (unw_word_t)ra)
                start = n;
            n++;
            if (start >= 0 && n - start >= cs.depth + 8)
                break;
        }
    }
    if (!ra)
        start = app_start(ip, n);
    else /* MPI library frames right above the call (mpi_f08 → MPI_Send) are skipped. */
        while (start >= 0 && start + 1 < n && in_text(&cs.mpi_text, ip[start]))
            start++;
    if (start < 0) {
        if (!ra)
            return 0;
        if (!broken)
            tardy_warn_once(&cs.unwind_broken, "call-path unwinding failed (libunwind found no "
                            "caller frame); call paths keep only the calling site from now on");
        pc[0] = (uintptr_t)ra;
        slot[0] = 0;
        return 1;
    }
    int k = 0;
    for (int i = start; i < n && k < cs.depth; i++, k++) {
        pc[k] = ip[i];
        slot[k] = sp[i] - sizeof(uintptr_t);
    }
    return k;
}

static uint32_t intern(const uintptr_t *pc, int n)
{
    uint64_t h = hash_frames(pc, n);
    for (uint64_t idx = h & cs.mask;; idx = (idx + 1) & cs.mask) {
        uint64_t sh = atomic_load_explicit(&cs.slots[idx].hash, memory_order_acquire);
        if (sh == 0)
            return insert(h, idx, pc, n);
        if (sh == h && same(cs.slots[idx].id, pc, n))
            return cs.slots[idx].id;
    }
}

/* A path the thread's cache did not hold: unwound, interned and cached. Apart from
 * cs_capture so that a hit does not pay for the unwinder's arrays. */
static __attribute__((noinline)) uint32_t capture_unwound(void *ra, const void *sp,
                                                          struct path_way *way)
{
    uintptr_t pc[CS_MAX_DEPTH], slot[CS_MAX_DEPTH];
    int n = unwind_from(ra, pc, slot);
    uint32_t id = intern(pc, n);
    pcache_put(way, (uintptr_t)ra, (uintptr_t)sp, id, pc, slot, n);
    return id;
}

/* A depth-1 path: the call site alone (no cache, no unwind). */
static __attribute__((noinline)) uint32_t capture_site(void *ra)
{
    uintptr_t pc = (uintptr_t)ra;
    return intern(&pc, 1);
}

uint32_t cs_capture(void *ra, const void *sp)
{
    if (cs.depth == 0)
        return CS_NONE;
    if (cs.depth == 1 && ra)
        return capture_site(ra);
    struct path_way *way;
    uint32_t id = pcache_get((uintptr_t)ra, (uintptr_t)sp, &way);
    return __builtin_expect(id != 0, 1) ? id : capture_unwound(ra, sp, way);
}

int cs_stack(uintptr_t *pc, int max, int after_signal, uintptr_t fault_pc)
{
    unw_context_t ctx;
    unw_cursor_t cur;
    uintptr_t ip[CS_MAX_DEPTH + 32];
    int sig[CS_MAX_DEPTH + 32];
    int n = 0, k = 0, start = 0;
    if (unw_getcontext(&ctx) != 0 || unw_init_local(&cur, &ctx) != 0)
        return 0;
    while (n < CS_MAX_DEPTH + 32 && unw_step(&cur) > 0) {
        unw_word_t w;
        unw_get_reg(&cur, UNW_REG_IP, &w);
        ip[n] = (uintptr_t)w;
        sig[n++] = unw_is_signal_frame(&cur) > 0;
    }
    if (after_signal) {
        /* The interrupted frame: the one at the signal's program counter; else the one
         * libunwind marks as reached through the signal frame. */
        start = -1;
        for (int i = 0; i < n && start < 0; i++)
            if (fault_pc && ip[i] == fault_pc)
                start = i;
        for (int i = 0; i < n && start < 0; i++)
            if (sig[i])
                start = i;
        if (start < 0)
            return 0;
        /* A signal inside MPI (or tardy): the application's frames are what tells where. */
        int app = start;
        while (app < n && in_tools_or_mpi(ip[app]))
            app++;
        if (app < n && app > start) {
            start = app;
            after_signal = 0; /* a return address now, not the interrupted instruction */
        }
    } else {
        while (start < n && in_tools_or_mpi(ip[start]))
            start++;
    }
    for (int i = start; i < n && k < max; i++, k++)
        /* Return addresses point after their call and the symbolizer takes one off; the
         * interrupted instruction's own address gets one added to stay on it. */
        pc[k] = ip[i] + (after_signal && i == start);
    return k;
}

uint32_t cs_count(void)
{
    return atomic_load_explicit(&cs.count, memory_order_acquire);
}

int cs_frames(uint32_t id, const uintptr_t **pcs)
{
    if (id < 2 || id >= cs_count()) {
        *pcs = NULL;
        return 0;
    }
    *pcs = cs.pcs + (size_t)id * cs.depth;
    return cs.len[id];
}
