/* Start and finish of the tool in one process. */
#include "runtime.h"
#include "partial.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool/core/core.h"
#include "tool/report/report.h"
#include "tool/base/base.h"
#include "tool/counters/counters.h"
#include "tool/memory/memory.h"
#include "mpit/mpi_t/mpi_t.h"
#include "mpit/own/own.h"
#include "tool/profile/profile.h"
#include "tool/waits/waits.h"

extern char **environ;

static struct {
    int prepared, started, finished;
    int memory;             /* memory tracking is on */
    int layer;              /* the entry points that count: EV_PMPI or EV_QMPI */
    struct strbuf warnings; /* option problems, printed by rank 0 once MPI is up */
    int thread_level;
    MPI_Comm comm;          /* private duplicate of MPI_COMM_WORLD for the tool's traffic */
    double t_start;
    char start_time[32];
    char run_id[40];        /* rank 0's, the same on every rank: names this job's files */
    int host_ranks;         /* the ranks on this host as its launcher said, 0: split at finalize */
} rt = {.comm = MPI_COMM_NULL};

void rt_prepare(unsigned fn, void *ra)
{
    if (rt.prepared)
        return;
    rt.prepared = 1;
    sb_init(&rt.warnings);
    cfg_load(environ, &rt.warnings);
    if (!cfg.enable)
        return;
    if (cs_init(cfg.depth, cfg.max_callpaths) < 0)
        sb_printf(&rt.warnings, "not enough memory for %d call paths; call paths are off\n",
                  cfg.max_callpaths);
    const char *why = NULL;
    rt.memory = cfg.memory && mem_start(&why) == 0;
    if (cfg.memory && !rt.memory)
        sb_printf(&rt.warnings, "memory tracking is off: %s\n", why);
    struct ev_thread *t = ev_thread();
    if (t && rt.memory)
        t->mem_site = SITE(fn, cs_capture(ra, &t));
}

static int describe_job(struct profile *p, char *why, size_t len);
static void agree(void);
static void fill_metadata(struct profile *p, int warn);

void rt_start(unsigned fn, int thread_level, void *ra, double t_enter, double t_leave)
{
    if (rt.started)
        return;
    rt_prepare(fn, ra);
    rt.started = 1;
    rt.thread_level = thread_level;
    if (ev_self)
        ev_self->mem_site = 0;
    mem_solo(thread_level <= MPI_THREAD_FUNNELED);
    own_Comm_rank(MPI_COMM_WORLD, &tardy_rank);
    if (tardy_rank == 0 && rt.warnings.len) {
        for (char *line = strtok(rt.warnings.data, "\n"); line; line = strtok(NULL, "\n"))
            tardy_warn("%s", line);
    }
    sb_free(&rt.warnings);
    /* Every rank takes part in the collectives below and at finalize, whatever its options,
     * so that a rank with a different environment cannot hang the job. */
    yw_comm_dup(MPI_COMM_WORLD, &rt.comm);
    /* to the millisecond: runs started in one second (a sweep of short jobs) keep their order
     * in a store, where the newest run gives a target the parameters it leaves out */
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    time_t now = wall.tv_sec;
    char second[24];
    strftime(second, sizeof second, "%Y-%m-%dT%H:%M:%S", gmtime(&now));
    snprintf(rt.start_time, sizeof rt.start_time, "%.19s.%03dZ", second,
             (int)(wall.tv_nsec / 1000000) % 1000);
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    host[strcspn(host, ".")] = '\0';
    snprintf(rt.run_id, sizeof rt.run_id, "%lx-%.20s-%d", (unsigned long)now, host,
             (int)getpid());
    rt.host_ranks = host_load_launcher_ranks();
    agree();
    rt.t_start = t_enter; /* wall time includes MPI_Init, which counts as MPI time */
    ws_init(rt.comm, rt.thread_level == MPI_THREAD_MULTIPLE);
    char *settings = NULL;
    if (cfg.enable) {
        pr_init();
        if (ctr_start(cfg.papi, cfg.pvar_counters, cfg.papi_multiplex, rt.comm) && ev_self)
            ev_self->ctr = ctr_thread_new();
        mt_start(tardy_rank);
        if (tardy_rank == 0)
            settings = fc_start(describe_job);
    }
    mt_write_settings(settings, rt.comm);
    free(settings);
    if (!cfg.enable)
        return;
    ev_record(fn, ra, t_enter, t_leave);
    rt.layer = qm_active() ? EV_QMPI : EV_PMPI;
    struct profile meta;
    profile_init(&meta);
    fill_metadata(&meta, 0);
    atomic_store(&ev_on, rt.layer);
    pt_start(&meta, tardy_rank, rt.t_start, rt.memory, rt.layer);
    /* The metadata and the handlers above are tardy's start-up, not the program's compute:
     * its first interval starts here. */
    if (ev_self)
        ev_self->last_leave = clk_now();
}

void rt_abort(int errorcode, void *ra)
{
    if (rt.started && !rt.finished && cfg.enable)
        pt_abort(errorcode, ra);
}

void rt_session(void)
{
    static atomic_int warned;
    if (!rt.started)
        tardy_warn_once(&warned, "MPI_Session_init: programs are measured from MPI_Init on; "
                        "one of the sessions model alone gets no profile");
}

void rt_pcontrol(int level)
{
    if (!rt.started || rt.finished || !cfg.enable)
        return;
    if (level != 0)
        atomic_fetch_add(&ev_epoch, 1);
    pt_collect(level != 0);
}

/* The command line of this process, from /proc (argv as the program got it). */
static void read_cmdline(struct profile *p)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    char buf[8192];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    int count = 0;
    for (size_t i = 0; i < n; i++)
        count += buf[i] == '\0';
    p->argv = calloc((size_t)count + 1, sizeof *p->argv);
    size_t off = 0;
    for (int i = 0; i < count && p->argv; i++) {
        if (i == 0)
            p->program = strdup(buf);
        else
            p->argv[p->argc++] = strdup(buf + off);
        off += strlen(buf + off) + 1;
    }
    if (!p->program)
        p->program = strdup("?");
}

/* What tardy.on_init sees of the job starting (rank 0): program, ranks, parameters and every
 * control variable; -1 with the reason when MPI_T is not in use. */
static int describe_job(struct profile *p, char *why, size_t len)
{
    char err[256];
    if (mt_cvars_now(p) < 0) {
        snprintf(why, len, "MPI_T is not in use (TARDY_MPIT=0, or MPI_T_init_thread failed)");
        return -1;
    }
    read_cmdline(p);
    own_Comm_size(MPI_COMM_WORLD, &p->ranks);
    profile_set_params(p, cfg.params, err, sizeof err); /* a bad entry: warned at finalize */
    return 0;
}

/* One MAX reduction at MPI_Init for what the ranks must agree on: rank 0's run id (the others
 * bring zeros) and whether every rank's launcher said how many ranks share its host (else
 * every rank counts them at finalize with a shared-memory split). */
#define RUN_ID_WORDS (sizeof rt.run_id / sizeof(uint64_t))
_Static_assert(sizeof rt.run_id % sizeof(uint64_t) == 0, "the run id is whole words");
static void agree(void)
{
    uint64_t in[RUN_ID_WORDS + 1] = {0}, all[RUN_ID_WORDS + 1] = {0};
    if (tardy_rank == 0)
        memcpy(in, rt.run_id, sizeof rt.run_id);
    in[RUN_ID_WORDS] = rt.host_ranks == 0;
    if (yw_allreduce(in, all, RUN_ID_WORDS + 1, MPI_UINT64_T, MPI_MAX, rt.comm) != MPI_SUCCESS)
        all[RUN_ID_WORDS] = 1; /* this rank's own run id */
    else
        memcpy(rt.run_id, all, sizeof rt.run_id);
    rt.run_id[sizeof rt.run_id - 1] = '\0';
    if (all[RUN_ID_WORDS])
        rt.host_ranks = 0;
}

/* Number of distinct hosts, valid at rank 0: each rank sets the bit of its host name's hash
 * in a fixed bitmap, the bitmaps are OR-reduced, and linear counting turns the bits set into
 * a count. Constant size whatever the rank count, exact unless two host names' hashes
 * collide (1 in 32768 per pair), and far cheaper than splitting by shared memory. Started
 * before the tree reduction, so that it advances while the ranks wait there; counted after. */
#define HOST_BITS 32768
static uint64_t host_bits[HOST_BITS / 64], host_bits_all[HOST_BITS / 64];

static void hosts_start(MPI_Request *r)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = host; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    memset(host_bits, 0, sizeof host_bits);
    unsigned bit = (unsigned)(h % HOST_BITS);
    host_bits[bit / 64] |= 1ull << (bit % 64);
    *r = MPI_REQUEST_NULL;
    if (!red_alone(rt.comm))
        own_Ireduce(host_bits, host_bits_all, HOST_BITS / 64, MPI_UINT64_T, MPI_BOR, 0, rt.comm,
                    r);
}

static int hosts_count(MPI_Request *r)
{
    if (red_alone(rt.comm))
        return 1;
    yw_wait(r);
    int set = 0;
    for (int i = 0; i < HOST_BITS / 64; i++)
        set += __builtin_popcountll(host_bits_all[i]);
    if (set >= HOST_BITS)
        return set;
    return (int)(-HOST_BITS * log(1.0 - (double)set / HOST_BITS) + 0.5);
}

static void fill_metadata(struct profile *p, int warn)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], ver[16], host[256];
    int len = 0, v = 0, sv = 0;
    read_cmdline(p);
    own_Comm_size(MPI_COMM_WORLD, &p->ranks);
    own_Get_library_version(lib, &len);
    own_Get_version(&v, &sv);
    snprintf(ver, sizeof ver, "%d.%d", v, sv);
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    lib[strcspn(lib, "\n")] = '\0';
    for (char *q = lib; *q; q++)
        if (*q == '\t')
            *q = ' ';
    p->mpi_library = strdup(lib);
    p->mpi_version = strdup(ver);
    p->tardy_version = strdup(TARDY_VERSION);
    p->clock = strdup(CLK_SOURCE_NAME);
    p->start_time = strdup(rt.start_time);
    p->host = strdup(host);
    p->interface = strdup(rt.layer == EV_QMPI ? "QMPI" : "PMPI");
    p->thread_level = rt.thread_level;
    p->depth = cfg.enable ? cfg.depth : 0;
    p->ncounters = ctr_count();
    for (int i = 0; i < ctr_count(); i++)
        p->counters[i] = strdup(ctr_name(i));
    p->counter_multiplex = ctr_multiplexed();
    mt_describe(p);
    if (ctr_note())
        p->counter_note = strdup(ctr_note());
    char err[256];
    p->run_id = strdup(rt.run_id);
    if (profile_set_params(p, cfg.params, err, sizeof err) < 0 && warn)
        tardy_warn("TARDY_PARAMS: %s; parameters after it are not recorded", err);
}

static void emit(struct profile *p)
{
    char err[512];
    /* as the file will hold them, so that predictions, file and summary agree with what
     * tardy report and tardy predict read back */
    profile_round_ns(p);
    fc_predict(p);
    /* With a run store, the profile goes to the store; also to TARDY_PROFILE if it is set. */
    int to_dir = strcmp(cfg.profile, "none") && (!*cfg.store || getenv("TARDY_PROFILE"));
    if (to_dir && profile_write(p, cfg.profile, err, sizeof err) < 0)
        tardy_warn("no profile written: %s", err);
    fc_store(p);
    /* p->path is the profile in TARDY_PROFILE's directory, else the one in the store. */
    if (cfg.html && profile_write_html(p, err, sizeof err) < 0)
        tardy_warn("TARDY_HTML: no HTML report: %s", err);
    if (!strcmp(cfg.summary, "none"))
        return;
    struct strbuf text;
    sb_init(&text);
    summary_write(p, cfg.top, &text);
    sb_printable(&text);
    FILE *f = !strcmp(cfg.summary, "stdout") ? stdout
              : !strcmp(cfg.summary, "stderr") ? stderr
                                                : fopen(cfg.summary, "w");
    if (!f)
        tardy_warn("cannot open TARDY_SUMMARY=%s; the summary goes to stderr", cfg.summary);
    f = f ? f : stderr;
    fwrite(text.data ? text.data : "", 1, text.len, f);
    fflush(f);
    if (f != stdout && f != stderr)
        fclose(f);
    sb_free(&text);
}

void rt_finish(void *ra)
{
    if (!rt.started || rt.finished)
        return;
    if (cfg.enable)
        pt_finish(); /* no snapshot from here on */
    struct ev_call c;
    if (ev_enter(&c, TARDY_FN_MPI_Finalize, ra, EV_ANY)) {
        ev_started(&c);
        c.t_leave = c.t_enter;
        ev_leave(&c);
    }
    atomic_store(&ev_on, 0);
    mem_stop();
    rt.finished = 1;
    double wall = clk_now() - rt.t_start;
    struct profile p;
    profile_init(&p);
    ws_finish(rt.comm);
    struct red_hist hist;
    MPI_Request hosts;
    red_hist_start(&hist, ev_rank_compute(), rt.comm);
    hosts_start(&hosts);
    if (cfg.enable && (collect_rank(&p.rows, tardy_rank, wall, rt.memory) < 0 ||
                       ws_rows(&p.rows, tardy_rank) < 0))
        tardy_warn("out of memory while collecting; the profile lacks some of this rank's rows");
    if (cfg.enable)
        pt_rows(&p.rows);
    if (cfg.enable && host_load_rows(&p.rows, rt.comm, tardy_rank, rt.host_ranks) < 0)
        tardy_warn("cannot count the ranks and CPUs of this host; the profile does not say "
                   "whether ranks outnumber CPUs");
    red_tree(&p.rows, rt.comm);
    ws_resolve(&p.rows, rt.comm);
    red_hist_finish(&hist, &p.rank_hist_lo, &p.rank_hist_hi, p.rank_hist);
    p.hosts = hosts_count(&hosts);
    if (tardy_rank == 0 && cfg.enable) {
        fill_metadata(&p, 1);
        emit(&p);
    }
    profile_free(&p);
    pc_stop();
    mt_stop();
    pr_fini();
    own_Comm_free(&rt.comm);
}
