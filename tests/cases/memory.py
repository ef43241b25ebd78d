"""Memory the MPI library allocates (issue 6)."""
import math
import os
import re
import shutil
import tempfile

from run import LIB, Room, Run, Skip, binary, expect, mpi_rows, mpich_like, one_row, with_run

room = Room("memory")


def mem(row, key="alloc_bytes"):
    return row.get("memory", {}).get(key, {}).get("sum", 0)


def test_mem_unexpected(count, size):
    """Rank 0 sends COUNT eager messages before rank 1 posts a receive: the MPI library on
    rank 1 buffers them, in memory charged to rank 1's calls (not MPI_Init)."""
    src = "tests/mpi/mem_unexpected.c"

    @with_run([binary("mem_unexpected"), str(count), str(size)], 2)
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        rows = [r for f, m in (("MPI_Barrier", "urbarrier"), ("MPI_Iprobe", "uprobe"),
                               ("MPI_Recv", "urecv")) for r in mpi_rows(run.profile, f, src, m)]
        got = sum(mem(r) for r in rows)
        expect(got >= count * size, "%d bytes charged to rank 1's calls, %d unexpected (%s)" % (
            got, count * size, [(r["function"], mem(r)) for r in rows]))
        expect(all(r["memory"]["alloc_bytes"]["max_rank"] == 1 for r in rows if "memory" in r),
               "charged to another rank")
        hwm = run.profile["ranks"]["mpi_memory_high_water"]
        expect(hwm["max_rank"] == 1 and hwm["max"] >= count * size, "high-water mark %s" % hwm)
        expect("MPI library memory" in run.summary, "no memory section in the summary")


def test_mem_dup(ranks):
    """20 MPI_Comm_dup/free pairs at one site, 400 at another: the live bytes of the second are
    not larger (a leak per pair would make them 20 times larger)."""
    src = "tests/mpi/mem_dup.c"

    @with_run([binary("mem_dup"), "20", "400"], ranks)
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        few = [r for m, f in (("dupfew", "MPI_Comm_dup"), ("freefew", "MPI_Comm_free"))
               for r in mpi_rows(run.profile, f, src, m)]
        many = [r for m, f in (("dupmany", "MPI_Comm_dup"), ("freemany", "MPI_Comm_free"))
                for r in mpi_rows(run.profile, f, src, m)]
        alloc_many = sum(mem(r) for r in many)
        live_few = sum(mem(r, "live_bytes") for r in few)
        live_many = sum(mem(r, "live_bytes") for r in many)
        expect(alloc_many > 0, "MPI_Comm_dup allocated nothing: is memory tracking on?")
        # one chunk of a pool the library grew meanwhile stays (24 KiB seen once at 2 ranks);
        # a leak of a whole pair (6 KiB each, 400 of them) is far above that
        expect(live_many <= live_few + 65536 * max(ranks, 1),
               "live bytes grow with pairs: %d after 20 pairs, %d after 400 (allocated %d)" % (
                   live_few, live_many, alloc_many))
        expect(sum(mem(r, "freed_bytes") for r in many) >= alloc_many - live_many,
               "frees not charged back to the allocating call")


def reduction_memory(run, src, site, line):
    """A run of a program whose user-defined reduction allocates inside MPI_Allreduce at
    `@site site` of src: the ranks where it ran (its output lines matching line), and that
    call's allocated, freed and live bytes over all ranks."""
    expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
    ran = len(re.findall(r"^%s$" % line, run.out, re.M))
    expect(ran >= 1, "the reduction ran on no rank: %r" % run.out)
    row = one_row(run.profile, "MPI_Allreduce", src, site)
    return ran, mem(row), mem(row, "freed_bytes"), mem(row, "live_bytes")


def test_mem_unmap(ranks):
    """munmap of the tail, the head and the middle of a 5-page mapping made inside an MPI call:
    3 pages freed and 2 still live, all charged to the call that mapped them (before: the
    head's munmap freed all 5 pages and the others nothing)."""
    src, page = "tests/mpi/mem_unmap.c", os.sysconf("SC_PAGESIZE")

    @with_run([binary("mem_unmap")], ranks)
    def _(run):
        mapped, alloc, freed, live = reduction_memory(run, src, "map", r"unmap rank \d+: all")
        # The library's own small blocks at this call are allocated and freed within it.
        extra = alloc - 5 * page * mapped
        expect(live == 2 * page * mapped and extra >= 0 and freed - extra == 3 * page * mapped,
               "allocated %d, freed %d, live %d; expected 5, 3, 2 pages (of %d) per rank on %d "
               "ranks" % (alloc, freed, live, page, mapped))


def test_mem_many(ranks):
    """10,000 blocks of 777 bytes allocated inside one MPI call, every other one freed after
    it: the live table grows past its first 4,096 slots (doubling under the lock) and loses
    none of them, so the call's live bytes are the 5,000 blocks left, its freed bytes the
    other 5,000 (the library's own blocks at this call come and go within it)."""
    src, blocks, size = "tests/mpi/mem_many.c", 10000, 777

    @with_run([binary("mem_many")], ranks)
    def _(run):
        ran, alloc, freed, live = reduction_memory(run, src, "blocks", r"many rank \d+: ran")
        half = blocks // 2 * size * ran
        extra = alloc - blocks * size * ran
        expect(live == half and extra >= 0 and freed - extra == half,
               "allocated %d, freed %d, live %d; expected %d, %d, %d on %d ranks" % (
                   alloc, freed, live, 2 * half, half, half, ran))


def test_mem_app(ranks):
    """The program's own allocations (64 MiB kept, churn of every allocator function, a thread
    allocating while the main thread waits in MPI_Barrier) are not the MPI library's."""
    @with_run([binary("mem_app")], ranks)
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        total = sum(mem(r) for r in run.profile["mpi"])
        live = sum(mem(r, "live_bytes") for r in run.profile["mpi"])
        hwm = run.profile["ranks"]["mpi_memory_high_water"]["max"]
        limit = 32 << 20  # the MPI library's own: ~15 MiB per rank in MPI_Init with MPICH/UCX
        expect(hwm < limit and live < limit * max(ranks, 1),
               "the program's 64 MiB counted as MPI memory: high-water %d, live %d" % (hwm, live))
        barrier = [r for r in run.profile["mpi"] if r["function"] == "MPI_Barrier"]
        expect(sum(mem(r) for r in barrier) < (1 << 20),
               "MPI_Barrier charged %d bytes" % sum(mem(r) for r in barrier))
        expect(total < limit * max(ranks, 1), "allocated %d" % total)


def test_mem_other_malloc(lib):
    """Another malloc preloaded first: tracking is off (said once), the program is unchanged."""
    path = "/usr/lib/x86_64-linux-gnu/" + lib
    if not os.path.exists(path):
        raise Skip("%s is not installed (ci/deps)" % lib)
    runs = [Run([binary("exits"), "print", "3"], 2, {"LD_PRELOAD": pre}, tool=False)
            for pre in (path + ":" + LIB, path)]
    try:
        with_tool, without = runs
        needle = "memory tracking is off"
        expect(with_tool.err.count(needle) == 1, "%r said %d times: %s" % (
            needle, with_tool.err.count(needle), with_tool.err[-800:]))
        expect(with_tool.rc == without.rc == 3, "exit %d with tardy, %d without" % (
            with_tool.rc, without.rc))
        expect(with_tool.out == without.out, "output differs")
        expect(with_tool.profile is not None, "no profile")
        expect(not any("memory" in r for r in with_tool.profile["mpi"]) and
               "mpi_memory_high_water" not in with_tool.profile["ranks"], "memory rows")
    finally:
        for r in runs:
            r.cleanup()


def test_mem_fork(ranks):
    @with_run([binary("mem_fork")], ranks)
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
        expect(run.out.count("forks ok 20") == ranks, "output %r" % run.out)
        expect(run.profile and mpi_rows(run.profile, "MPI_Comm_dup"), "no profile")


def test_mem_predict():
    """Runs at 1, 2, 4 ranks in a store, the last predicting p=8 at finalize: the default
    policy predicts the MPI library's memory per process there, per rank and for the MPI_Init
    call path, finite and flagged as extrapolated. Three scales support no more: Open MPI's
    memory at 1, 2, 4 ranks follows c + a p^3 exactly (3.2 MB at 8 ranks, the cubic says 4.1,
    inside its interval; at 64 it said 590 MB), and at p=64 the fits of the runs' noise
    draws disagree 200x, so the policy gives no number there."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for n in (1, 2, 4):
            env = {"TARDY_STORE": store}
            if n == 4:
                env["TARDY_PREDICT"] = "p=8"

            @with_run([binary("mem_dup"), "2", "10"], n, env)
            def _(run):
                expect(run.rc == 0 and run.profile, "exit %d at -n %d: %s" % (
                    run.rc, n, run.err[-800:]))
                if n < 4:
                    return
                preds = run.profile.get("predictions", [])
                for needle in ("MPI library memory per rank at finalize", "MPI_Init@"):
                    got = [q for q in preds if q["metric"].startswith(needle) and
                           "memory" in q["metric"]]
                    expect(got, "no memory prediction %r in %s" % (
                        needle, [q["metric"] for q in preds]))
                    expect(math.isfinite(got[0]["value"]) and got[0]["extrapolated"] and
                           got[0]["target"] == "p=8", "prediction %s" % got[0])
    finally:
        shutil.rmtree(store, ignore_errors=True)


# Messages below the eager limit, or the sends wait for receives that come after them: MPICH's
# shared memory sends 4 KiB eagerly, Open MPI's vader BTL 4 KiB including ob1's header.
UNEXPECTED_SIZE = 4096 if mpich_like() else 2048
room.case("memory/unexpected eager messages -n 2",
          lambda: test_mem_unexpected(2048, UNEXPECTED_SIZE))
# Not at 4 ranks on 2 cores: there the duplicates' internal allreduce meets late partners at
# random, and the unexpected messages the library buffers for them (legitimately held pool
# memory) land in either loop.
for _n in (0, 1, 2):
    room.case("memory/Comm_dup/free pairs %s" % ("singleton" if _n == 0 else "-n %d" % _n),
              lambda n=_n: test_mem_dup(n))
room.case("memory/munmap of part of a mapping -n 2", lambda: test_mem_unmap(2))
room.case("memory/10,000 live blocks: the live table grows -n 2", lambda: test_mem_many(2))
for _n in (1, 2):
    room.case("memory/application malloc loop -n %d" % _n, lambda n=_n: test_mem_app(n))
for _lib in ("libjemalloc.so.2", "libtcmalloc_minimal.so.4"):
    room.case("memory/%s preloaded first" % _lib, lambda l=_lib: test_mem_other_malloc(l))
room.case("memory/fork after MPI_Init, MPI_THREAD_MULTIPLE -n 2", lambda: test_mem_fork(2))
room.case("memory/prediction of MPI memory at p=8 from 1, 2, 4 ranks", test_mem_predict)
