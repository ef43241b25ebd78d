/* Partial profiles: one rank's profile written when it goes down early, and snapshots.
 *
 * How each way of dying is handled, and why it is safe there:
 *  - MPI_Abort: the wrapper calls pt_abort in normal context, before PMPI_Abort; the rank's
 *    rows are collected, symbolized and written like at MPI_Finalize (no MPI calls).
 *  - Fatal signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) and termination signals
 *    (SIGTERM, SIGINT, SIGXCPU, SIGUSR1): the handler itself runs only async-signal-safe
 *    calls: _Fork (glibc's fork without atfork handlers and without taking malloc's locks),
 *    waitpid, nanosleep, kill, sigaction, raise. The forked copy of the process (one thread:
 *    the one the signal hit) collects, symbolizes and writes the profile with ordinary code,
 *    and prints the line on stderr; the process waits for it at most PT_WAIT_S seconds and
 *    kills it if it hangs (the signal may have come while this thread held a lock the copy
 *    needs: malloc's, the symbolizer's). Whatever the copy does, the dying process's state is
 *    untouched. Deferring to the next MPI call was not chosen: a crash has no next call, a
 *    rank computing or blocked in MPI when SIGTERM comes may never make one, and holding
 *    back a termination signal changes when the program stops.
 *  - Afterwards the signal goes where it would have gone without tardy: to the handler the
 *    program (or the MPI library) had installed before MPI_Init, with its flags; or, for a
 *    default disposition, the default is restored and the signal raised again (pending
 *    until the handler returns; a fault re-executes and faults again), so the process ends
 *    by the same signal with the same status and core dump. Signals the program ignores
 *    (SIG_IGN) get no handler. A handler the program installs after MPI_Init replaces
 *    tardy's: that signal then leaves no partial profile (snapshots still do).
 *  - SIGKILL and node failures give no warning: TARDY_SNAPSHOT=S rewrites the partial
 *    profile at the first MPI call after every S seconds (at multiples of S on the wall clock,
 *    the same moment on every rank). A thread that sleeps (blocking all signals) makes it
 *    due by clearing ev_on and setting ev_due; the wrapper's guard is already on its
 *    unlikely branch then, so a call costs nothing extra between snapshots and nothing at
 *    all without TARDY_SNAPSHOT.
 * Every file is written under a temporary name and renamed over this rank's partial
 * profile, so a reader sees the previous snapshot or the new file, never half of one. */
#include "partial.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "tool/base/base.h"
#include "tool/core/core.h"
#include "tool/memory/memory.h"
#include "tool/report/report.h"
#include "tool/waits/waits.h"

#define PT_WAIT_S 20 /* longest wait for the forked writer (Slurm's KillWait default: 30 s) */
#define PT_FRAMES 32

static const int pt_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                 SIGTERM, SIGINT, SIGXCPU, SIGUSR1};
#define NSIGNALS (int)(sizeof pt_signals / sizeof pt_signals[0])

static struct {
    int started, finished;
    int rank, memory, layer;
    double t_start;
    char dir[PATH_MAX / 2], name[256];
    struct profile meta;    /* metadata; rows and stops are filled per write */
    struct sigaction old[NSIGNALS];
    int installed[NSIGNALS];
    atomic_int dying;       /* a handler is writing */
    /* snapshots */
    int period;             /* seconds, 0: off */
    pthread_t timer;
    int timer_running;
    pthread_mutex_t lock;   /* ev_on, wanted, finished, snap_pending between the threads */
    pthread_cond_t wake;    /* the snapshot thread's: a snapshot collected, or pt_finish */
    int wanted;             /* collection is on (not under MPI_Pcontrol(0)) */
    struct profile snap;    /* the snapshot being written: pt.meta's metadata, its own rows */
    struct prof_stop snap_stop;
    char snap_when[32];
    int snap_pending;       /* collected, not written yet */
    atomic_int snap_writing;
    double snap_seconds;    /* the rank's time collecting snapshots */
    double snap_write_seconds; /* the snapshot thread's time writing them */
    int snaps;
} pt = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGXCPU: return "SIGXCPU";
    case SIGUSR1: return "SIGUSR1";
    default: return "signal";
    }
}

static int is_fatal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

/* Collect this rank's rows into p with stop st (its time string in when). Normal context only
 * (or the forked copy). */
static void collect_partial(struct profile *p, struct prof_stop *st, char when[32])
{
    double wall = clk_now() - pt.t_start;
    time_t now = time(NULL);
    strftime(when, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    /* What tardy allocates now is not the MPI library's: charge it to no call site. */
    struct ev_thread *self = ev_self;
    uint64_t site = self ? self->mem_site : 0;
    if (self)
        self->mem_site = 0;
    st->rank = pt.rank;
    st->time = when;
    st->wall = wall;
    rowset_init(&p->rows);
    int rc = collect_rank(&p->rows, pt.rank, wall, pt.memory);
    if (rc == 0)
        rc = ws_rows(&p->rows, pt.rank);
    if (rc < 0)
        tardy_warn("out of memory while collecting; the partial profile lacks some rows");
    double compute = ev_rank_compute();
    p->rank_hist_lo = p->rank_hist_hi = compute;
    memset(p->rank_hist, 0, sizeof p->rank_hist);
    p->rank_hist[0] = 1;
    p->partial = 1;
    p->stops = st;
    p->nstops = 1;
    if (self)
        self->mem_site = site;
}

/* Write what collect_partial put in p as this rank's partial profile, and empty p. Returns 0,
 * or -1 with a warning printed. */
static int write_collected(struct profile *p)
{
    char err[600];
    int rc = profile_write_as(p, pt.dir, pt.name, err, sizeof err);
    if (rc < 0)
        tardy_warn("no partial profile written: %s", err);
    p->stops = NULL;
    p->nstops = 0;
    rowset_free(&p->rows);
    return rc;
}

/* The snapshot thread writes; a rank going down writes its own file: it sets dying first and
 * then waits while the snapshot thread is inside its write, which looks at dying after
 * saying so (both sequentially consistent), so a snapshot never lands over the file of an
 * abort or a signal. The wait is bounded: the snapshot thread may need a lock the
 * interrupted thread holds (malloc's). Async-signal-safe. */
static void wait_for_snapshot_writer(void)
{
    struct timespec tick = {0, 1000000};
    for (int k = 0; atomic_load(&pt.snap_writing) && k < 2000; k++)
        nanosleep(&tick, NULL);
}

static int write_partial(struct prof_stop *st)
{
    char when[32];
    collect_partial(&pt.meta, st, when);
    return write_collected(&pt.meta);
}

/* "fn file:line < fn file:line" for the stderr line (at most 3 frames). */
static void short_path(const char *where, char *out, size_t len)
{
    size_t o = 0;
    int frames = 0;
    out[0] = '\0';
    for (const char *f = where; f && *f && frames < 3 && o + 4 < len; frames++) {
        const char *end = strchr(f, ';');
        size_t n = end ? (size_t)(end - f) : strlen(f);
        o += (size_t)snprintf(out + o, len - o, "%s%.*s", frames ? " < " : "", (int)n, f);
        if (o >= len)
            break;
        f = end ? end + 1 : NULL;
    }
}

/* In the forked copy: a fault while unwinding the interrupted stack (libunwind reading a frame
 * of the MPI library's or another tool's it cannot describe) comes back here, and the profile
 * is written without the call path. */
static sigjmp_buf unwind_fault;

static void on_unwind_fault(int sig)
{
    (void)sig;
    siglongjmp(unwind_fault, 1);
}

/* The forked copy's work, in two parts on two stacks (below): the interrupted call path,
 * and then its names and the file. */
static struct {
    int sig, n;
    uintptr_t pcs[PT_FRAMES];
} child;

/* Name the call path, write the file, tell, and leave without running any of the program's
 * exit code. */
static void __attribute__((noreturn)) child_finish(void)
{
    int sig = child.sig;
    char *where = child.n > 0 ? collect_path_text(child.pcs, child.n) : NULL;
    struct prof_stop st = {.reason = (char *)"signal", .code = sig,
                           .signal = (char *)sig_name(sig), .where = where};
    if (write_partial(&st) == 0) {
        char path[400];
        short_path(where, path, sizeof path);
        if (is_fatal(sig))
            tardy_warn("crashed with %s at %s; partial profile %s", sig_name(sig),
                       *path ? path : "(no call path)", pt.meta.path);
        else
            tardy_warn("stopped by %s %.1f s after MPI_Init; partial profile %s",
                       sig_name(sig), st.wall, pt.meta.path);
    }
    free(where);
    _exit(0);
}

/* The copy starts on the stack the signal's handler had, which may be a small alternate
 * signal stack (SA_ONSTACK; the MPI library's UCX installs one). The unwinding must run
 * there (the signal's frame is on it), but libdw's line tables need far more stack (a copy
 * naming its path there faulted about 1 in 8 times): the rest moves to a stack of its own,
 * mapped with the system call itself (not through tardy's mmap, whose tables the
 * interrupted thread may hold). */
#define PT_STACK (16u << 20)

static void __attribute__((noreturn)) finish_on_own_stack(void)
{
    void *stack = (void *)syscall(SYS_mmap, NULL, (size_t)PT_STACK, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    ucontext_t here, there;
    if (stack != MAP_FAILED && getcontext(&there) == 0) {
        there.uc_stack.ss_sp = stack;
        there.uc_stack.ss_size = PT_STACK;
        there.uc_link = NULL;
        makecontext(&there, (void (*)(void))child_finish, 0);
        swapcontext(&here, &there); /* child_finish never comes back */
    }
    child_finish();
}

/* The forked copy of a process that got sig: the call path the signal interrupted, then the
 * rest on a stack of its own. */
static void __attribute__((noreturn)) child_write(int sig, void *uc)
{
    /* A fault here must end this copy, not enter the handler again. */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    for (int i = 0; i < NSIGNALS; i++)
        sigaction(pt_signals[i], &dfl, NULL);
    /* Out of the job's process group: a launcher that kills the group once a rank is gone
     * (Hydra does) would end this copy before it has written. */
    setsid();
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigaction(SIGPIPE, &ign, NULL);
    alarm(PT_WAIT_S + 5);
    mem_stop();
    uintptr_t fault_pc = 0;
#if defined(__x86_64__)
    fault_pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    fault_pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc;
#endif
    /* The signal being handled (and its handler's mask) is blocked here: a fault while it
     * is blocked would end this copy at once, so they are unblocked for the guard. */
    struct sigaction guard = {.sa_handler = on_unwind_fault}, old_segv, old_bus;
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    sigprocmask(SIG_UNBLOCK, &faults, NULL);
    child.sig = sig;
    if (sigsetjmp(unwind_fault, 1) == 0) {
        sigaction(SIGSEGV, &guard, &old_segv);
        sigaction(SIGBUS, &guard, &old_bus);
        child.n = cs_stack(child.pcs, PT_FRAMES, 1, fault_pc);
    } else {
        child.n = 0;
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    finish_on_own_stack();
}

static int slot_of(int sig)
{
    for (int i = 0; i < NSIGNALS; i++)
        if (pt_signals[i] == sig)
            return i;
    return -1;
}

/* Give the signal to whoever would have had it without tardy. */
static void pass_on(int sig, siginfo_t *si, void *uc, int k)
{
    struct sigaction *o = &pt.old[k];
    int is_fn = (o->sa_flags & SA_SIGINFO) ? o->sa_sigaction != NULL
                                           : o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN;
    if (is_fn) {
        if (o->sa_flags & SA_RESETHAND) {
            struct sigaction dfl = {.sa_handler = SIG_DFL};
            sigaction(sig, &dfl, NULL);
        }
        if (o->sa_flags & SA_SIGINFO)
            o->sa_sigaction(sig, si, uc);
        else
            o->sa_handler(sig);
        return;
    }
    if (o->sa_handler == SIG_IGN)
        return;
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigaction(sig, &dfl, NULL);
    raise(sig); /* blocked while this handler runs: delivered, by default, when it returns */
}

/* One line on stderr from the handler, with write(2) only: the writer (the forked copy)
 * ended by signal (or, with signal 0, was killed after PT_WAIT_S seconds). */
static void writer_failed(int signal)
{
    char line[160] = "tardy[rank ";
    size_t n = strlen(line);
    char digits[16];
    int k = 0;
    unsigned r = pt.rank >= 0 ? (unsigned)pt.rank : 0;
    do
        digits[k++] = (char)('0' + r % 10);
    while ((r /= 10) && k < 15);
    while (k)
        line[n++] = digits[--k];
    const char *tail = signal ? "]: the partial profile's writer failed (signal " :
                                "]: the partial profile's writer hung; it was stopped";
    for (const char *c = tail; *c; c++)
        line[n++] = *c;
    if (signal) {
        r = (unsigned)signal;
        do
            digits[k++] = (char)('0' + r % 10);
        while ((r /= 10) && k < 15);
        while (k)
            line[n++] = digits[--k];
        line[n++] = ')';
    }
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    int k = slot_of(sig);
    if (k < 0)
        return;
    if (!pt.finished && !atomic_exchange(&pt.dying, 1)) {
        wait_for_snapshot_writer();
        pid_t c = _Fork();
        if (c == 0)
            child_write(sig, uc);
        if (c > 0) {
            int status;
            struct timespec tick = {0, 5000000};
            long waited = 0;
            for (;;) {
                pid_t w = waitpid(c, &status, WNOHANG);
                if (w == c && WIFSIGNALED(status))
                    writer_failed(WTERMSIG(status));
                if (w == c || (w < 0 && errno != EINTR))
                    break;
                if (waited >= PT_WAIT_S * 200L) {
                    kill(c, SIGKILL);
                    waitpid(c, &status, 0);
                    writer_failed(0);
                    break;
                }
                nanosleep(&tick, NULL);
                waited++;
            }
        }
        pass_on(sig, si, uc, k);
        atomic_store(&pt.dying, 0); /* the program's handler returned: it goes on */
    } else {
        pass_on(sig, si, uc, k);
    }
    errno = saved;
}

static void install_handlers(void)
{
    for (int i = 0; i < NSIGNALS; i++) {
        struct sigaction old, sa;
        if (sigaction(pt_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_mask = old.sa_mask;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (old.sa_flags & (SA_RESTART | SA_NODEFER));
        pt.old[i] = old;
        if (sigaction(pt_signals[i], &sa, NULL) == 0)
            pt.installed[i] = 1;
    }
}

static void remove_handlers(void)
{
    for (int i = 0; i < NSIGNALS; i++) {
        struct sigaction now;
        if (!pt.installed[i] || sigaction(pt_signals[i], NULL, &now) != 0)
            continue;
        if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal)
            sigaction(pt_signals[i], &pt.old[i], NULL);
        pt.installed[i] = 0;
    }
}

/* ---- snapshots ---- */

/* The rank's own thread only collects (tens of microseconds once the call paths are named);
 * the snapshot thread builds the JSON and writes the file meanwhile (about 1 ms, and a rename
 * over the previous file can wait for the file system), so a snapshot stalls the rank, and
 * the neighbours waiting for it, no longer than the collection. A snapshot falls due only
 * when the previous one is written. */
static void snapshot_now(void)
{
    pthread_mutex_lock(&pt.lock);
    if (!pt.finished && !atomic_load(&pt.dying) && !pt.snap_pending) {
        double t0 = clk_now();
        pt.snap_stop = (struct prof_stop){.reason = (char *)"snapshot"};
        collect_partial(&pt.snap, &pt.snap_stop, pt.snap_when);
        pt.snap_pending = 1;
        pt.snap_seconds += clk_now() - t0;
        pt.snaps++;
        pthread_cond_signal(&pt.wake);
    }
    atomic_store(&ev_on, pt.wanted && !pt.finished ? pt.layer : 0);
    pthread_mutex_unlock(&pt.lock);
}

/* See wait_for_snapshot_writer. */
static void write_snapshot(void)
{
    double t0 = clk_now();
    atomic_store(&pt.snap_writing, 1);
    if (!atomic_load(&pt.dying)) {
        write_collected(&pt.snap);
    } else {
        pt.snap.stops = NULL;
        pt.snap.nstops = 0;
        rowset_free(&pt.snap.rows);
    }
    atomic_store(&pt.snap_writing, 0);
    pt.snap_write_seconds += clk_now() - t0;
}

/* Snapshots fall due at multiples of the period on the wall clock, so the ranks of a job
 * (clocks kept in step by NTP) write at about the same moment: a rank writing stalls its
 * neighbours once per period, not once per rank per period. The thread sleeps on pt.wake
 * (CLOCK_REALTIME, the condition variable's default clock) until then, or until a collected
 * snapshot waits to be written, or until pt_finish. */
static void *snapshot_thread(void *arg)
{
    (void)arg;
    struct timespec now, next = {0, 0};
    pthread_mutex_lock(&pt.lock);
    while (!pt.finished) {
        if (pt.snap_pending) {
            pthread_mutex_unlock(&pt.lock);
            write_snapshot();
            pthread_mutex_lock(&pt.lock);
            pt.snap_pending = 0;
            continue;
        }
        clock_gettime(CLOCK_REALTIME, &now);
        if (now.tv_sec >= next.tv_sec) {
            if (next.tv_sec && pt.wanted) {
                atomic_store(&ev_due, 1);
                atomic_store(&ev_on, 0);
            }
            next.tv_sec = (now.tv_sec / pt.period + 1) * pt.period;
        }
        pthread_cond_timedwait(&pt.wake, &pt.lock, &next);
    }
    pthread_mutex_unlock(&pt.lock);
    return NULL;
}

static void start_snapshots(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits it: no signal goes there */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pt.snap = pt.meta; /* the metadata; rows, stop and path of its own */
    pt.snap.path = NULL;
    rowset_init(&pt.snap.rows);
    ev_due_hook = snapshot_now;
    if (pthread_create(&pt.timer, &attr, snapshot_thread, NULL) == 0)
        pt.timer_running = 1;
    else
        tardy_warn("cannot start the snapshot thread; TARDY_SNAPSHOT is off");
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- life cycle ---- */

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

void pt_start(struct profile *meta, int rank, double t_start, int memory, int layer)
{
    pt.meta = *meta;
    rowset_init(&pt.meta.rows);
    pt.rank = rank;
    pt.t_start = t_start;
    pt.memory = memory;
    pt.layer = layer;
    pt.wanted = 1;
    pt.period = cfg.snapshot;
    if (!strcmp(cfg.profile, "none") || (!cfg.partial && !pt.period))
        return;
    snprintf(pt.dir, sizeof pt.dir, "%s", cfg.profile);
    snprintf(pt.name, sizeof pt.name, "tardy-%.100s-%s.rank%d.partial.json",
             base_name(meta->program ? meta->program : "app"),
             meta->run_id ? meta->run_id : "run", rank);
    pt.started = 1;
    if (cfg.partial)
        install_handlers();
    if (pt.period) {
        collect_keep_names(1);
        start_snapshots();
    }
}

void pt_collect(int on)
{
    pthread_mutex_lock(&pt.lock);
    pt.wanted = on;
    if (!atomic_load(&ev_due))
        atomic_store(&ev_on, on ? pt.layer : 0);
    pthread_mutex_unlock(&pt.lock);
}

void pt_abort(int errorcode, void *ra)
{
    (void)ra;
    if (!pt.started || pt.finished || atomic_exchange(&pt.dying, 1))
        return;
    atomic_store(&ev_on, 0);
    mem_stop();
    wait_for_snapshot_writer();
    uintptr_t pcs[PT_FRAMES];
    int n = cs_stack(pcs, PT_FRAMES, 0, 0);
    char *where = n > 0 ? collect_path_text(pcs, n) : NULL;
    struct prof_stop st = {.reason = (char *)"abort", .code = errorcode, .where = where};
    pthread_mutex_lock(&pt.lock);
    if (write_partial(&st) == 0) {
        char path[400];
        short_path(where, path, sizeof path);
        tardy_warn("MPI_Abort(code %d) called at %s; partial profile %s", errorcode,
                   *path ? path : "?", pt.meta.path);
    }
    pthread_mutex_unlock(&pt.lock);
    free(where);
}

void pt_finish(void)
{
    pthread_mutex_lock(&pt.lock);
    pt.finished = 1;
    atomic_store(&ev_due, 0);
    pthread_cond_signal(&pt.wake);
    pthread_mutex_unlock(&pt.lock);
    if (pt.timer_running) {
        pthread_join(pt.timer, NULL); /* after the snapshot it may be writing */
        pt.timer_running = 0;
        free(pt.snap.path);
        if (pt.snap_pending)
            rowset_free(&pt.snap.rows);
    }
    collect_keep_names(0);
    if (pt.started) {
        remove_handlers();
        /* Also a file the forked writer made when the program's own handler let it go on. */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", pt.dir, pt.name);
        unlink(path);
    }
    profile_free(&pt.meta);
}

void pt_rows(struct rowset *rs)
{
    if (!pt.period)
        return;
    struct prof_row *r = rowset_get(rs, ROW_RANK, "snapshots", NULL);
    if (r)
        red_stat_one(&r->n.time, pt.snaps, pt.rank);
    r = rowset_get(rs, ROW_RANK, "snapshot_time", NULL);
    if (r)
        red_stat_one(&r->n.time, pt.snap_seconds, pt.rank);
    r = rowset_get(rs, ROW_RANK, "snapshot_write_time", NULL);
    if (r)
        red_stat_one(&r->n.time, pt.snap_write_seconds, pt.rank);
}
