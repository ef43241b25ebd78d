#!/usr/bin/env python3
"""Run tardy's tests: unit test binaries, MPI programs under tardy (checked on their JSON
profiles), and the command line. Prints PASS/FAIL/SKIP per test and ends with the line
`N passed, N failed[, N skipped]`. Exit status 1 if anything failed."""
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

B = os.environ.get("B", "build")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.mpich")
LIB = os.path.abspath(os.path.join(B, "lib", "libtardy.so"))
TARDY = os.path.abspath(os.path.join(B, "bin", "tardy"))
TIMEOUT = 120
# ci/qmpi runs the tests against an MPICH built with QMPI, tardy attached as a QMPI tool.
QMPI = os.environ.get("TARDY_TEST_QMPI") == "1"
if "openmpi" in MPIEXEC:  # Open MPI as root in CI, 4 ranks on 2 cores: every launch here
    os.environ.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                       "OMPI_MCA_rmaps_base_oversubscribe": "1"})
QTOOL = os.path.abspath(os.path.join(B, "tests", "qmpi", "libqtool.so"))
results = {"passed": 0, "failed": 0, "skipped": 0}


class Skip(Exception):
    pass


def report(name, ok, why=""):
    if ok is None:
        results["skipped"] += 1
        print("SKIP %s (%s)" % (name, why))
    elif ok:
        results["passed"] += 1
        print("PASS %s" % name)
    else:
        results["failed"] += 1
        print("FAIL %s: %s" % (name, why))
    sys.stdout.flush()


# ---- running programs ------------------------------------------------------------------------

class Run:
    """One run of a program, with its exit code, output and the profile it wrote."""

    def __init__(self, argv, ranks, env=None, tool=True, cwd=None):
        self.dir = tempfile.mkdtemp(prefix="tardy-test-")
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("TARDY_"):
                del e[k]
        e["TARDY_PROFILE"] = self.dir
        e["TARDY_SUMMARY"] = os.path.join(self.dir, "summary.txt")
        if tool:
            e["LD_PRELOAD"] = LIB
            if QMPI:
                e["MPIR_CVAR_QMPI_TOOL_LIST"] = "tardy"
        e.update(env or {})
        cmd = list(argv) if ranks == 0 else [MPIEXEC, "-n", str(ranks)] + list(argv)
        try:
            p = subprocess.run(["timeout", str(TIMEOUT)] + cmd, env=e, cwd=cwd or self.dir,
                               capture_output=True, text=True)
            self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
        except OSError as ex:
            self.rc, self.out, self.err = 127, "", str(ex)
        self.env_text = " ".join("%s=%s" % kv for kv in sorted(e.items()) if "QMPI" in kv[0])
        files = glob.glob(os.path.join(self.dir, "tardy-*.json"))
        self.profile = json.load(open(files[0])) if len(files) == 1 else None
        self.nprofiles = len(files)
        s = os.path.join(self.dir, "summary.txt")
        self.summary = open(s).read() if os.path.exists(s) else ""

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def site_line(source, marker):
    """Line of the @site marker in source (tests never hard-code line numbers)."""
    for i, line in enumerate(open(source), 1):
        if re.search(r"@site %s\b" % re.escape(marker), line):
            return i
    raise AssertionError("no marker @site %s in %s" % (marker, source))


def frames_of(profile, callpath):
    return profile["callpaths"][callpath]["frames"]


def at_site(profile, row_site, source, marker):
    """Is the innermost frame of the call site at the marked line of source?"""
    frames = frames_of(profile, row_site["callpath"])
    if not frames:
        return False
    f = frames[0]
    return os.path.basename(f["file"]) == os.path.basename(source) and \
        f["line"] == site_line(source, marker)


def mpi_rows(profile, function, source=None, marker=None):
    return [r for r in profile["mpi"] if r["function"] == function and
            (marker is None or at_site(profile, r, source, marker))]


def one_row(profile, function, source, marker):
    rows = mpi_rows(profile, function, source, marker)
    assert len(rows) == 1, "%d rows for %s at @site %s (functions: %s)" % (
        len(rows), function, marker, sorted({r["function"] for r in profile["mpi"]}))
    return rows[0]


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


# ---- test cases ------------------------------------------------------------------------------

def test_unit(binary):
    p = subprocess.run(["timeout", str(TIMEOUT), binary], capture_output=True, text=True)
    expect(p.returncode == 0, (p.stdout + p.stderr).strip()[-2000:])


def check_p2p(run, ranks):
    src = "tests/mpi/p2p_counts.c"
    expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
    prof = run.profile
    expect(prof is not None, "no single profile (%d files)" % run.nprofiles)
    expect(prof["run"]["ranks"] == ranks, "ranks %s" % prof["run"]["ranks"])
    want = "QMPI" if QMPI and "QMPI_TOOL_LIST=" in run.env_text else "PMPI"
    expect(prof["run"]["interface"] == want, "attached via %s" % prof["run"]["interface"])
    pairs = ranks // 2
    if pairs:
        send = one_row(prof, "MPI_Send", src, "send100")
        expect(send["count"]["sum"] == 10 * pairs, "send count %s" % send["count"])
        expect(send["sent"]["sum"] == 8000 * pairs, "send bytes %s" % send["sent"])
        expect(send["sent"]["max"] == 8000, "bytes per rank %s" % send["sent"])
        recv = one_row(prof, "MPI_Recv", src, "recv100")
        expect(recv["recv"]["sum"] == 8000 * pairs, "recv bytes (STATUS_IGNORE) %s" % recv["recv"])
        vec = one_row(prof, "MPI_Send", src, "vecsend")
        expect(vec["sent"]["sum"] == 96 * pairs, "derived type bytes %s" % vec["sent"])
        anyr = one_row(prof, "MPI_Recv", src, "anyrecv")
        expect(anyr["recv"]["sum"] == 96 * pairs, "ANY_SOURCE recv bytes %s" % anyr["recv"])
        expect(prof["ranks"]["partners"]["max"] >= 1, "partners %s" % prof["ranks"]["partners"])
    inplace = one_row(prof, "MPI_Allreduce", src, "inplace")
    expect(inplace["count"]["sum"] == ranks and inplace["sent"]["sum"] == 8 * ranks,
           "IN_PLACE allreduce %s %s" % (inplace["count"], inplace["sent"]))
    a2av = one_row(prof, "MPI_Alltoallv", src, "a2av")
    # rank r sends (r+1) ints to each of the ranks and receives q+1 from each q
    sent = sum(4 * (r + 1) * ranks for r in range(ranks))
    recv = ranks * sum(4 * (q + 1) for q in range(ranks))
    expect(a2av["sent"]["sum"] == sent and a2av["recv"]["sum"] == recv,
           "alltoallv bytes %s %s" % (a2av["sent"]["sum"], a2av["recv"]["sum"]))
    expect(not mpi_rows(prof, "MPI_Barrier", src, "hidden"), "calls under MPI_Pcontrol(0) counted")
    barriers = sum(r["count"]["sum"] for r in mpi_rows(prof, "MPI_Barrier"))
    expect(barriers == 10 * ranks, "barriers %s (Pcontrol)" % barriers)
    # the busy interval
    iv = [i for i in prof["intervals"]
          if at_site(prof, i["from"], src, "before_spin") and at_site(prof, i["to"], src, "after_spin")]
    expect(len(iv) == 1, "interval before_spin -> after_spin: %d rows" % len(iv))
    expect(iv[0]["count"]["sum"] == 5 * ranks, "interval count %s" % iv[0]["count"])
    # The program times the busy region itself (5 x 40 ms per rank, more if preempted).
    spun = sum(float(x) for x in re.findall(r"^spin rank \d+: (\S+) s$", run.out, re.M))
    expect(spun >= 0.2 * ranks, "the program reported %.6f s of spinning" % spun)
    got = iv[0]["time"]["sum"]
    expect(abs(got - spun) <= 0.1 * spun, "busy interval %.6f s, the program measured %.6f s"
           " (+- 10%%)" % (got, spun))
    if ranks >= 4:  # halves {0,2,..} and {1,3,..}: rank 1 of each sends 16 bytes
        sub = one_row(prof, "MPI_Send", src, "subsend")
        expect(sub["sent"]["sum"] == 32 and sub["count"]["sum"] == 2, "subcomm send %s" % sub["sent"])
    # the tool's own traffic never shows: only functions the program called
    called = {"MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Alltoallv", "MPI_Barrier",
              "MPI_Comm_split", "MPI_Comm_free", "MPI_Finalize"}
    extra = {r["function"] for r in prof["mpi"]} - called
    expect(not extra, "functions the program did not call: %s" % extra)
    compute = prof["ranks"]["compute"]
    expect(compute["max"] >= 0.2 and compute["ranks"] == ranks, "compute %s" % compute)


def test_p2p(ranks):
    """ranks == 0: a singleton (no mpiexec), which is one rank."""
    run = Run([os.path.abspath(os.path.join(B, "tests/mpi/p2p_counts"))], ranks)
    try:
        check_p2p(run, max(ranks, 1))
    finally:
        run.cleanup()


def binary(name):
    return os.path.abspath(os.path.join(B, "tests/mpi", name))


def with_run(argv, ranks, env=None, tool=True):
    """Run and hand the run to the check; always clean up."""
    def deco(check):
        run = Run(argv, ranks, env, tool)
        try:
            return check(run)
        finally:
            run.cleanup()
    return deco


def check_calls(run, src, expected):
    """expected: [(function, marker, total calls, total bytes sent+recv)]"""
    expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
    expect(run.profile is not None, "no profile")
    for function, marker, calls, nbytes in expected:
        row = one_row(run.profile, function, src, marker)
        expect(row["count"]["sum"] == calls, "%s @%s: %s calls, expected %d" %
               (function, marker, row["count"]["sum"], calls))
        got = row["sent"]["sum"] + row["recv"]["sum"]
        expect(nbytes is None or got == nbytes, "%s @%s: %s bytes, expected %s" %
               (function, marker, got, nbytes))


def test_families(ranks):
    """Every family of the spec, with bytes known by construction (tests/mpi/families.c)."""
    src, pairs = "tests/mpi/families.c", ranks // 2

    @with_run([binary("families")], ranks)
    def _(run):
        check_calls(run, src, [
            ("MPI_Irecv", "irecv", ranks, 64 * ranks), ("MPI_Isend", "isend", ranks, 64 * ranks),
            ("MPI_Waitall", "waitall", ranks, None),
            ("MPI_Start", "start_recv", 3 * ranks, 96 * ranks),
            ("MPI_Start", "start_send", 3 * ranks, 96 * ranks),
            ("MPI_Startall", "startall", 2 * ranks, 128 * ranks),
            ("MPI_Sendrecv_replace", "sendrecv_replace", ranks, 96 * ranks),
            ("MPI_Send", "send_five", pairs, 20 * pairs), ("MPI_Mprobe", "mprobe", pairs, 0),
            ("MPI_Mrecv", "mrecv", pairs, 20 * pairs),
            ("MPI_Send", "send_bottom", pairs, 12 * pairs),
            ("MPI_Recv", "recv_bottom", pairs, 12 * pairs),
            ("MPI_Allreduce", "inplace", ranks, 48 * ranks),
            ("MPI_Ibcast", "ibcast", ranks, 40 * ranks), ("MPI_Wait", "ibcast_wait", ranks, None),
            ("MPI_Neighbor_allgather", "neighbor", ranks, 32 * ranks),
            ("MPI_Win_fence", "fence1", ranks, 0), ("MPI_Put", "put", ranks, 32 * ranks),
            ("MPI_Get", "get", ranks, 16 * ranks), ("MPI_Win_fence", "fence2", ranks, 0),
            ("MPI_File_write_at", "fwrite", ranks, 24 * ranks),
            ("MPI_File_read_at", "fread", ranks, 24 * ranks)])


def test_fortran(name, ranks):
    """A Fortran program's calls and bytes. With MPI_IN_PLACE (the Fortran library's own
    object, not C's): an Allgather sends its share of the receive buffer, whatever send count
    and type it names; the root of a Gather sends nothing; Allreduce and Reduce count as in C."""
    src = "tests/mpi/fortran.F90"
    pairs, others = ranks // 2, ranks - 1

    @with_run([binary(name)], ranks)
    def _(run):
        check_calls(run, src, [
            ("MPI_Allreduce", "fallreduce", 3 * ranks, 3 * ranks * 16),
            ("MPI_Bcast", "fbcast", ranks, ranks * 32),
            ("MPI_Barrier", "fbarrier", ranks, 0)] +
            ([("MPI_Send", "fsend", 3 * pairs, 3 * pairs * 32),
              ("MPI_Recv", "frecv", 3 * pairs, 3 * pairs * 32)] if pairs else []) +
            ([("MPI_Reduce", "freduce", others, others * 24),
              ("MPI_Gather", "fgather", others, others * 8)] if others else []))
        for function, marker, calls, sent, recv in (
                ("MPI_Allreduce", "fip_allreduce", ranks, ranks * 24, ranks * 24),
                ("MPI_Reduce", "fip_reduce", 1, 24, 24),
                ("MPI_Allgather", "fip_allgather", ranks, ranks * 8, ranks * ranks * 8),
                ("MPI_Gather", "fip_gather", 1, 0, ranks * 8)):
            row = one_row(run.profile, function, src, marker)
            got = (row["count"]["sum"], row["sent"]["sum"], row["recv"]["sum"])
            expect(got == (calls, sent, recv), "%s @%s in place: %s calls, %s sent, %s "
                   "received, expected %s" % ((function, marker) + got + ((calls, sent, recv),)))
        init = mpi_rows(run.profile, "MPI_Init")
        expect(len(init) == 1 and os.path.basename(
            frames_of(run.profile, init[0]["callpath"])[0]["file"]) == os.path.basename(src),
            "MPI_Init not attributed to the Fortran program")


def test_cxx(ranks):
    @with_run([binary("cxx")], ranks)
    def _(run):
        check_calls(run, "tests/mpi/cxx.cc", [
            ("MPI_Allreduce", "cxxreduce", 4 * ranks, 4 * ranks * 160),
            ("MPI_Sendrecv_replace", "cxxring", 4 * ranks, 4 * ranks * 200)])


def test_threads(ranks):
    @with_run([binary("threads")], ranks)
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
        expect(run.profile["run"]["thread_level"] == 3, "thread level")
        n = 3 * 20 * (ranks // 2)
        check_calls(run, "tests/mpi/threads.c", [
            ("MPI_Send", "tsend", n, n * 64), ("MPI_Recv", "trecv", n, n * 64),
            ("MPI_Recv", "trecv2", n, n * 64), ("MPI_Send", "tsend2", n, n * 64)])


def test_exit(mode, code):
    # A process that exits without MPI_Finalize races the launcher's clean-up of the others:
    # MPICH's ch3 Hydra then reports SIGHUP's 1 now and then, without tardy too (1 in 60
    # measured; more with any large library preloaded). So "exit" gets three tries for the
    # codes to agree; a tool that changed the code would fail all three.
    for attempt in range(3 if mode == "exit" else 1):
        runs = [Run([binary("exits"), mode, str(code)], 2, tool=t) for t in (True, False)]
        if runs[0].rc == runs[1].rc or attempt == (2 if mode == "exit" else 0):
            break
        for r in runs:
            r.cleanup()
    try:
        with_tool, without = runs
        expect(with_tool.rc == without.rc, "exit %d under tardy, %d without (%s %d)" %
               (with_tool.rc, without.rc, mode, code))
        if mode == "return":
            expect(with_tool.rc == code, "exit code %d" % with_tool.rc)
        if mode == "print":
            expect(with_tool.out == without.out and with_tool.out.count("line") == 5,
                   "stdout differs under tardy:\n%s---\n%s" % (with_tool.out, without.out))
    finally:
        for r in runs:
            r.cleanup()


def test_bad_option(env, needle, profile=True):
    @with_run([binary("exits"), "return", "0"], 2, env)
    def _(run):
        expect(run.rc == 0, "exit %d" % run.rc)
        expect(needle in run.err, "no warning %r in: %s" % (needle, run.err[-800:]))
        expect(run.err.count(needle) == 1, "warning printed %d times" % run.err.count(needle))
        expect((run.profile is not None) == profile, "profile written: %s" % run.nprofiles)


def test_disabled():
    @with_run([binary("exits"), "print", "0"], 2, {"TARDY_ENABLE": "0"})
    def _(run):
        expect(run.rc == 0 and run.nprofiles == 0 and not run.summary,
               "TARDY_ENABLE=0 still wrote a profile or summary")
        expect(run.out.count("line") == 5, "output")


def test_depth(depth):
    @with_run([binary("p2p_counts")], 2, {"TARDY_DEPTH": str(depth)})
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d" % run.rc)
        expect(run.profile["run"]["callpath_depth"] == depth, "depth recorded")
        lengths = {len(c["frames"]) for c in run.profile["callpaths"]}
        if depth == 0:
            expect(lengths == {0}, "frames at depth 0: %s" % lengths)
        else:
            expect(max(lengths) <= depth and min(lengths) >= 1, "frames %s" % lengths)
        if depth >= 1:
            check_p2p(run, 2)


def test_linked():
    """The library linked in with -ltardy instead of preloaded."""
    @with_run([binary("p2p_linked")], 2, tool=False)
    def _(run):
        check_p2p(run, 2)


def test_report_cli():
    @with_run([binary("p2p_counts")], 2)
    def _(run):
        path = glob.glob(os.path.join(run.dir, "tardy-*.json"))[0]
        p = subprocess.run([TARDY, "report", path], capture_output=True, text=True)
        expect(p.returncode == 0 and "== tardy summary" in p.stdout, "report: %s" % p.stderr)
        expect(p.stdout.split("== MPI call paths")[1] == run.summary.split("== MPI call paths")[1],
               "tardy report differs from the in-job summary")
        bad = os.path.join(run.dir, "broken.json")
        open(bad, "w").write(open(path).read()[:200])
        for args, rc, needle in ((["report", bad], 1, bad), (["report", "/nonexistent.json"], 1,
                                 "/nonexistent.json"), (["report"], 2, "usage"),
                                 (["report", "--frobnicate", path], 2, "--frobnicate"),
                                 (["frobnicate"], 2, "unknown command")):
            p = subprocess.run([TARDY] + args, capture_output=True, text=True)
            expect(p.returncode == rc and needle in p.stderr,
                   "tardy %s: exit %d, stderr %r" % (" ".join(args), p.returncode, p.stderr))


def test_install():
    """make install into a fresh prefix; the installed launcher finds its library, the
    installed command reads the profile, pkg-config describes the library."""
    prefix = tempfile.mkdtemp(prefix="tardy-prefix-")
    try:
        p = subprocess.run(["make", "--no-print-directory", "-s", "install", "PREFIX=" + prefix],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "make install: %s" % p.stderr[-800:])
        for f in ("lib/libtardy.so", "lib/libtardy.a", "bin/tardy", "bin/tardy-run",
                  "include/tardy.h", "lib/pkgconfig/tardy.pc",
                  "share/tardy/lua/policies/default.lua"):
            expect(os.path.exists(os.path.join(prefix, f)), "not installed: %s" % f)
        out = os.path.join(prefix, "profiles")
        os.mkdir(out)
        e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
        e["TARDY_SUMMARY"] = "none"
        p = subprocess.run(["timeout", str(TIMEOUT), os.path.join(prefix, "bin/tardy-run"), "-o",
                            out, "--", MPIEXEC, "-n", "2", binary("exits"), "return", "0"],
                           env=e, capture_output=True, text=True)
        files = glob.glob(os.path.join(out, "tardy-*.json"))
        expect(p.returncode == 0 and len(files) == 1, "installed tardy-run: exit %d, %d profiles,"
               " %s" % (p.returncode, len(files), p.stderr[-500:]))
        p = subprocess.run([os.path.join(prefix, "bin/tardy"), "report", files[0]],
                           capture_output=True, text=True)
        expect(p.returncode == 0 and "== tardy summary" in p.stdout, "installed tardy report")
        e["PKG_CONFIG_PATH"] = os.path.join(prefix, "lib/pkgconfig")
        p = subprocess.run(["pkg-config", "--cflags", "--libs", "tardy"], env=e,
                           capture_output=True, text=True)
        expect(p.returncode == 0 and "-ltardy" in p.stdout and prefix in p.stdout,
               "pkg-config: %s %s" % (p.stdout, p.stderr))
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


def tardy_predict(args, env=None):
    empty = tempfile.mkdtemp(prefix="tardy-store-")
    e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
    e.update(env or {})
    try:
        return subprocess.run(["timeout", str(TIMEOUT), TARDY, "predict", "--store", empty] + args,
                              capture_output=True, text=True, env=e)
    finally:
        shutil.rmtree(empty, ignore_errors=True)


def predictions(text):
    """{metric: value} from the predictions table of `tardy predict`."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$", line)
        if m and "=" in m.group(1):
            out[m.group(6).split(" (")[0].strip()] = float(m.group(2))
    return out


def test_seed000():
    p = tardy_predict(["--at", "p=1024", "--lua", "tests/lua/seed000.lua", "--policy", "seed000"])
    expect(p.returncode == 0, p.stderr)
    got = predictions(p.stdout)
    for name, want in (("POISSON_MPI", 1606645.3), ("NPB-IS", 88104753.1), ("LULESH", 658495132.9)):
        expect(name in got, "no prediction for %s in %s" % (name, p.stdout))
        expect(abs(got[name] - want) <= 0.001 * want, "%s: %.1f, seed %.1f" % (name, got[name], want))


def test_recovery():
    p = tardy_predict(["--at", "p=1", "--lua", "tests/lua/recovery.lua", "--policy", "recovery"])
    expect(p.returncode == 0, p.stderr)
    got = predictions(p.stdout)
    for law in ("c+k/p", "c+k*p*log2(p)", "c+k*p", "n^2/p"):
        pred, true = got.get(law), got.get(law + " actual")
        expect(pred is not None and true, "law %s missing: %s" % (law, p.stdout))
        expect(abs(pred - true) <= 0.10 * true, "%s: predicted %g, actual %g" % (law, pred, true))


def test_broken_script(policy, needle, script="tests/lua/broken.lua"):
    if needle is None:  # the error names the file and the marked line
        needle = "broken.lua:%d:" % site_line(script, policy)
    # a budget of 50 million instructions and 64 MiB (defaults 2,000 million, 512 MiB): the
    # endless loop and the memory bomb end in about a second even on a loaded machine
    p = tardy_predict(["--at", "p=4", "--lua", script, "--policy", policy],
                      {"TARDY_LUA_BUDGET": "50", "TARDY_LUA_MEMORY": "64"})
    first = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
    expect(p.returncode == 1, "exit %d" % p.returncode)
    expect(needle in first, "first error line %r lacks %r" % (first, needle))


def test_broken_in_job(policy):
    """A failing script leaves the program's exit code and its profile alone, and says where
    it failed in one warning line."""
    script = "tests/lua/broken.lua"

    @with_run([binary("exits"), "return", "4"], 2, {
        "TARDY_LUA": os.path.abspath(script), "TARDY_POLICY": policy, "TARDY_PREDICT": "p=8",
        "TARDY_LUA_BUDGET": "50", "TARDY_LUA_MEMORY": "64"})
    def _(run):
        expect(run.rc == 4, "exit %d" % run.rc)
        expect(run.profile is not None, "profile lost")
        where = "broken.lua:%d:" % site_line(script, policy)
        lines = [line for line in run.err.splitlines() if "Lua" in line and where in line]
        expect(len(lines) == 1, "no one warning naming %s: %s" % (where, run.err[-600:]))
        expect("the Lua policy failed" in run.profile.get("prediction_note", ""), "note")


# ---- counters (PAPI, checked exactly through software-defined events) ------------------------

SDE = "tests/mpi/sde_counters.c"
WORK, INMPI = "sde:::TARDYTEST::WORK", "sde:::TARDYTEST::INMPI"


def interval_rows(prof, a, b, src=SDE):
    return [i for i in prof["intervals"] if at_site(prof, i["from"], src, a) and
            at_site(prof, i["to"], src, b)]


def check_sde(run, ranks, events):
    expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
    prof = run.profile
    expect(prof["counters"]["events"] == events, "events %s" % prof["counters"])
    work = interval_rows(prof, "before_work", "after_work")
    expect(len(work) == 1, "interval before_work -> after_work: %d rows" % len(work))
    c = work[0]["counters"][WORK]
    expect(c["sum"] == 3000 * sum(r + 1 for r in range(ranks)), "WORK in interval %s" % c)
    expect(c["min"] == 3000 and c["max"] == 3000 * ranks and c["max_rank"] == ranks - 1,
           "WORK per rank %s" % c)
    expect(sum(n for _, n in c["ranks_histogram"]) == ranks, "per-rank distribution %s" % c)
    tail = interval_rows(prof, "after_work", "dup")
    expect(len(tail) == 1 and tail[0]["counters"][WORK]["sum"] == 7 * ranks, "WORK before dup")
    back = interval_rows(prof, "after_work", "before_work")
    expect(ranks == 1 or back[0]["counters"][WORK]["sum"] == 0, "WORK in the loop back edge")
    dup = one_row(prof, "MPI_Comm_dup", SDE, "dup")["counters"]
    expect(dup[INMPI]["sum"] == 500 * ranks and dup[WORK]["sum"] == 0, "inside MPI_Comm_dup %s" % dup)
    # nothing else counted anywhere: every unit is where the program put it
    for name, want in ((WORK, 3000 * sum(r + 1 for r in range(ranks)) + 7 * ranks),
                       (INMPI, 500 * ranks)):
        total = sum(r["counters"][name]["sum"] for r in prof["mpi"] + prof["intervals"])
        expect(total == want, "%s total over rows %s, expected %d" % (name, total, want))
        expect(prof["ranks"]["counter:" + name]["sum"] == want, "per-rank total %s" % name)
    expect(INMPI in run.summary and "PAPI counters" in run.summary, "summary lacks counters")


def test_sde(ranks, extra=""):
    env = {"TARDY_PAPI": WORK + "," + INMPI + extra}

    @with_run([binary("sde_counters")], ranks, env)
    def _(run):
        check_sde(run, max(ranks, 1), [WORK, INMPI])
        if extra:
            bad = extra.strip(",")
            expect(run.err.count(bad) == 1 and "not read" in run.err,
                   "one warning naming %s: %s" % (bad, run.err[-600:]))
            expect(bad in run.profile["counters"]["note"], "note %s" % run.profile["counters"])


def test_counters_unavailable(event, reason):
    """Only unavailable events: one warning with PAPI's reason, everything else as before."""
    @with_run([binary("p2p_counts")], 2, {"TARDY_PAPI": event})
    def _(run):
        check_p2p(run, 2)
        warn = [line for line in run.err.splitlines() if event in line]
        expect(len(warn) == 1 and reason in warn[0], "warning %r in %s" % (reason, run.err[-600:]))
        expect(run.profile["counters"]["events"] == [] and "counters" not in run.profile["mpi"][0],
               "counters %s" % run.profile["counters"])


def perf_event_state():
    """PAPI's perf_event component as papi_component_avail reports it: 'disabled', 'enabled',
    or None when the command is missing."""
    try:
        out = subprocess.run(["papi_component_avail"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"^Name:\s+perf_event\s.*\n(\s+\\-> Disabled)?", out, re.M)
    return None if not m else ("disabled" if m.group(1) else "enabled")


def test_counters_no_pmu():
    """A hardware event where the VM has no PMU: the warning gives the component's reason.
    Where perf_event works (a PMU is there) the event may still be missing: then PAPI's own
    reason; where it is readable, there is nothing to test."""
    state = perf_event_state()
    if state is None:
        raise Skip("papi_component_avail not found")
    if state == "disabled":
        return test_counters_unavailable("PAPI_TOT_INS", "disabled")
    avail = subprocess.run(["papi_avail", "-e", "PAPI_TOT_INS"], capture_output=True,
                           text=True, timeout=60)
    if avail.returncode == 0 and "NOT available" not in avail.stdout + avail.stderr:
        raise Skip("this machine has a PMU and PAPI_TOT_INS is readable")
    return test_counters_unavailable("PAPI_TOT_INS", "PAPI event PAPI_TOT_INS is not read")


def test_counters_off():
    @with_run([binary("sde_counters")], 2)
    def _(run):
        expect(run.rc == 0 and "counters" not in run.profile, "counters without TARDY_PAPI")
        expect(not any("counters" in r for r in run.profile["mpi"] + run.profile["intervals"]),
               "counter columns without TARDY_PAPI")


def test_counters_multiplex():
    """SDE events cannot be multiplexed (PAPI multiplexes perf_event counters, absent here):
    one warning, then the events are read directly and still exact."""
    @with_run([binary("sde_counters")], 2, {"TARDY_PAPI": WORK + "," + INMPI,
                                            "TARDY_PAPI_MULTIPLEX": "1"})
    def _(run):
        check_sde(run, 2, [WORK, INMPI])
        expect(run.err.count("TARDY_PAPI_MULTIPLEX") == 1, "warning: %s" % run.err[-400:])
        expect(run.profile["counters"]["multiplex"] is False, "multiplex recorded")


def test_counters_report():
    @with_run([binary("sde_counters")], 2, {"TARDY_PAPI": WORK + "," + INMPI})
    def _(run):
        path = glob.glob(os.path.join(run.dir, "tardy-*.json"))[0]
        p = subprocess.run([TARDY, "report", path], capture_output=True, text=True)
        part = "== PAPI counters"
        expect(p.returncode == 0 and part in p.stdout, "report: %s" % p.stderr)
        expect(p.stdout.split(part)[1] == run.summary.split(part)[1],
               "tardy report's counters differ from the in-job summary")


# ---- MPI_T: control variables recorded and written, performance variables, events ---------

def mpich_like():
    return "openmpi" not in MPIEXEC


# The allreduce algorithm selector of each MPI: its name, and how the profile shows its default
# and the values 3 (recursive doubling) and 4. MPICH's has no MPI_T enumeration (tardy finds
# the value names in its description, the profile has numbers); Open MPI's has one.
if mpich_like():
    ALG, ALG_TEXT = "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", {0: "0", 3: "3", 4: "4"}
else:
    ALG, ALG_TEXT = "coll_tuned_allreduce_algorithm", {0: "ignore", 3: "recursive_doubling",
                                                       4: "ring"}
NO_SUCH = "MPIR_CVAR_NO_SUCH" if mpich_like() else "coll_tuned_no_such"
MPIT_PROG = [binary("mpit_cvars"), ALG]  # the program reads ALG back through MPI_T


def cvar(prof, name):
    rows = [c for c in prof["mpi_t"]["cvars"] if c["name"] == name]
    return rows[0] if rows else None


def test_mpit_record(ranks):
    """Defaults: every *_ALGORITHM and eager/rendezvous variable recorded, the inventory, and
    a note (not a warning) when the library has no performance variables or events."""
    @with_run(MPIT_PROG, ranks)
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-800:]))
        expect("tardy" not in run.err, "warnings: %s" % run.err[-800:])
        m = run.profile["mpi_t"]
        expect(m["cvars_total"] > 0, "inventory %s" % {k: m[k] for k in m if k != "cvars"})
        names = [c["name"] for c in m["cvars"]]
        expect(all(re.search("(?i)algorithm$|eager|rndv|rendezvous", n) for n in names) and
               sum(1 for n in names if n.upper().endswith("_ALGORITHM")) >= 10,
               "recorded %d: %s" % (len(names), names[:8]))
        expect(not any("written" in c for c in m["cvars"]), "nothing written")
        expect(cvar(run.profile, ALG)["value"] == ALG_TEXT[0],
               "default algorithm %s" % cvar(run.profile, ALG))
        if mpich_like():
            if m["pvars_total"] == 0:
                expect("no performance variables" in m["note"], "note %r" % m.get("note"))
        if m["events_total"] <= 0:
            expect("events" in m["note"], "note %r" % m.get("note"))
        negative = [p for p in m["pvars"] if p["class"] == "timer" and p["value"]["min"] < 0]
        expect(not negative, "negative timers recorded: %s" % negative[:2])
        if not mpich_like():  # Open MPI's ob1 queue lengths, bound to MPI_COMM_WORLD
            pv = {p["name"]: p for p in m["pvars"]}
            for name in ("pml_ob1_unexpected_msgq_length", "pml_ob1_posted_recvq_length"):
                expect(name in pv and pv[name]["class"] == "size" and
                       pv[name]["value"]["ranks"] == max(ranks, 1), "pvar %s: %s" % (name, pv.get(name)))


def test_mpit_write():
    """TARDY_CVARS by value name: the library holds the new value (the program reads it back
    through its own MPI_T session), and the profile records the write."""
    env = {"TARDY_CVARS": ALG + "=recursive_doubling"}

    @with_run(MPIT_PROG, 2, env)
    def _(run):
        expect(run.rc == 0 and "tardy" not in run.err, "exit %d: %s" % (run.rc, run.err[-800:]))
        expect(ALG + "=3" in run.out, "the program reads %r" % run.out)
        c = cvar(run.profile, ALG)
        expect(c == {"name": ALG, "value": ALG_TEXT[3], "written": "recursive_doubling",
                     "origin": "option", "before": ALG_TEXT[0]}, "recorded %s" % c)
        expect("set %s = recursive_doubling (was %s, now %s; by TARDY_CVARS)" % (
            ALG, ALG_TEXT[0], ALG_TEXT[3]) in run.summary, "summary")
    run = Run(MPIT_PROG, 2)
    try:
        expect(ALG + "=0" in run.out, "without TARDY_CVARS the program reads %r" % run.out)
    finally:
        run.cleanup()


def test_mpit_bad_writes():
    env = {"TARDY_CVARS": "%s=1,%s=frobnicate,junk,%s=4" % (NO_SUCH, ALG, ALG)}

    @with_run(MPIT_PROG, 2, env)
    def _(run):
        expect(run.rc == 0, "exit %d" % run.rc)
        for needle in ("no control variable " + NO_SUCH, "'frobnicate' is not a value of",
                       "junk: not NAME=VALUE"):
            expect(run.err.count(needle) == 1, "warning %r: %s" % (needle, run.err[-800:]))
        c = cvar(run.profile, ALG)
        expect(c["value"] == ALG_TEXT[4] and c["written"] == "4",
               "the good write after bad ones: %s" % c)
        expect(ALG + "=4" in run.out, "the program reads %r" % run.out)


def test_mpit_off():
    @with_run(MPIT_PROG, 2, {"TARDY_MPIT": "0", "TARDY_CVARS": ALG + "=3"})
    def _(run):
        expect(run.rc == 0 and "mpi_t" not in run.profile and ALG + "=0" in run.out,
               "TARDY_MPIT=0 still used MPI_T")


# ---- the Lua init hook tardy.on_init: control variables chosen by the user's script ----------

HOOKS = "tests/lua/init_hooks.lua"


def hook_env(mode, **more):
    env = {"TARDY_LUA": os.path.abspath(HOOKS), "TARDY_PARAMS": "mode=%s,alg=%s" % (mode, ALG),
           "TARDY_LUA_BUDGET": "20"}
    env.update(more)
    return env


def reads(run, value, ranks):
    """Does every rank of the program read value for ALG through its own MPI_T session?"""
    got = sorted(re.findall(r"^%s=(-?\d+) rank (\d+)$" % re.escape(ALG), run.out, re.M),
                 key=lambda x: int(x[1]))
    return got == [(str(value), str(r)) for r in range(max(ranks, 1))]


def test_hook_set(ranks, mode="set", value=3, asked="recursive_doubling"):
    """The hook's setting is written on every rank (each reads it back after MPI_Init) and
    recorded with its origin; the hook saw the job: ranks, parameters, every control variable
    with its value, no earlier runs."""
    @with_run(MPIT_PROG, ranks, hook_env(mode))
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-800:]))
        expect(reads(run, value, ranks), "the ranks read %r" % run.out)
        warnings = [x for x in run.err.splitlines() if x.startswith("tardy[")]
        expect(not warnings, "warnings: %s" % warnings)
        m = re.search(r"tardy lua: ctx p=(\d+) params.p=(\d+) program=(\S+) runs=0 "
                      r"cvars=(\d+) %s=(\S+)" % re.escape(ALG), run.err)
        expect(m and int(m.group(1)) == max(ranks, 1) and m.group(2) == m.group(1) and
               m.group(3) == "mpit_cvars" and int(m.group(4)) >= 10 and
               m.group(5) in (ALG_TEXT[0], ALG_TEXT[0] + ".0"), "ctx: %s" % run.err[-800:])
        expect(run.profile["mpi_t"]["cvars_total"] >= int(m.group(4)), "more cvars than MPI_T")
        c = cvar(run.profile, ALG)
        expect(c == {"name": ALG, "value": ALG_TEXT[value], "written": asked, "origin": "lua",
                     "before": ALG_TEXT[0]}, "recorded %s" % c)
        expect("set %s = %s (was %s, now %s; by tardy.on_init)" % (
            ALG, asked, ALG_TEXT[0], ALG_TEXT[value]) in run.summary, "summary")


def test_hook_none():
    @with_run(MPIT_PROG, 2, hook_env("none"))
    def _(run):
        expect(run.rc == 0 and reads(run, 0, 2), "exit %d, reads %r" % (run.rc, run.out))
        expect("tardy[" not in run.err, "warnings: %s" % run.err[-600:])
        expect(not any("written" in c for c in run.profile["mpi_t"]["cvars"]), "written")


def test_hook_after_option():
    """TARDY_CVARS is written first (the hook sees its value), then the hook's setting wins;
    before is the value tardy found at MPI_Init."""
    @with_run(MPIT_PROG, 2, hook_env("set", TARDY_CVARS=ALG + "=4"))
    def _(run):
        expect(run.rc == 0 and reads(run, 3, 2), "exit %d, reads %r" % (run.rc, run.out))
        expect(re.search(r"ctx .* %s=(%s|4\.0)\b" % (re.escape(ALG), ALG_TEXT[4]), run.err),
               "the hook did not see TARDY_CVARS's value: %s" % run.err[-600:])
        c = cvar(run.profile, ALG)
        expect(c["written"] == "recursive_doubling" and c["origin"] == "lua" and
               c["before"] == ALG_TEXT[0], "recorded %s" % c)


def test_hook_store():
    """The hook gets the store's earlier runs of the program, with their control variables."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for i, value in enumerate((3, 4)):
            run = Run(MPIT_PROG, 2, hook_env("store", TARDY_STORE=store))
            try:
                expect(run.rc == 0 and reads(run, value, 2), "run %d: exit %d, reads %r %s" % (
                    i, run.rc, run.out, run.err[-600:]))
                expect(re.search(r"ctx .* runs=%d " % i, run.err), "runs: %s" % run.err[-600:])
                stored = re.findall(r"tardy lua: stored (\S+)", run.err)
                expect(stored == ([] if i == 0 else [ALG_TEXT[3] + (".0" if mpich_like() else
                                                                    "")]), "stored %s" % stored)
            finally:
                run.cleanup()
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_hook_docs_example():
    """The init hook example of docs/lua-api.md with a run store at 2 ranks: the first two jobs
    try 3 and 4, the third takes the one whose stored run's allreduces were faster per call
    (computed here from the stored profiles); every rank reads back what the hook chose."""
    text = open("docs/lua-api.md").read()
    m = re.search(r"<!-- example: tune.lua -->\s*```lua\n(.*?)```", text, re.S)
    expect(m, "no init hook example in docs/lua-api.md")
    work, store = tempfile.mkdtemp(prefix="tardy-doc-"), tempfile.mkdtemp(prefix="tardy-store-")
    by_text = {v: k for k, v in ALG_TEXT.items()}
    try:
        script = os.path.join(work, "tune.lua")
        open(script, "w").write(m.group(1))
        env = {"TARDY_LUA": script, "TARDY_STORE": store}
        for job in range(3):
            per_call = {}
            for path in glob.glob(os.path.join(store, "*.json")):
                prof = json.load(open(path))
                rows = [r for r in prof["mpi"] if r["function"] == "MPI_Allreduce"]
                value = by_text[cvar(prof, ALG)["value"]]
                per_call[value] = sum(r["time"]["sum"] for r in rows) / sum(
                    r["count"]["sum"] for r in rows)
            want = [3, 4, min(per_call, key=per_call.get) if job == 2 else None][job]
            run = Run(MPIT_PROG, 2, env)
            try:
                expect(run.rc == 0 and reads(run, want, 2), "job %d: exit %d, reads %r, want %s: "
                       "%s" % (job, run.rc, run.out, want, run.err[-600:]))
                expect(cvar(run.profile, ALG)["origin"] == "lua", "job %d: %s" % (
                    job, cvar(run.profile, ALG)))
                expect((job == 2) == ("tardy lua: allreduce: %s = " % ALG in run.err),
                       "job %d: %s" % (job, run.err[-600:]))
            finally:
                run.cleanup()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(store, ignore_errors=True)


def test_hook_broken(mode, needle, env=None):
    """A failing hook or a bad setting: the program's exit code, output and profile are as
    without it, the variable keeps its value, and one warning names the problem."""
    if needle is None:
        needle = "init_hooks.lua:%d:" % site_line(HOOKS, mode)

    @with_run(MPIT_PROG, 2, hook_env(mode, **(env or {})))
    def _(run):
        expect(run.rc == 0 and run.profile is not None, "exit %d: %s" % (run.rc, run.err[-600:]))
        good = 4 if mode == "unknown" else 0
        expect(reads(run, good, 2), "the ranks read %r" % run.out)
        warnings = [x for x in run.err.splitlines() if x.startswith("tardy[")]
        expect(len(warnings) == 1 and needle in warnings[0], "warnings %s, want one with %r" % (
            warnings, needle))
        c = cvar(run.profile, ALG) if "mpi_t" in run.profile else {}
        expect(("written" in c) == (mode == "unknown"), "recorded %s" % c)
        expect(run.out.count("rank") == 2, "output %r" % run.out)


# ---- QMPI ----------------------------------------------------------------------------------

def test_qmpi_compiled_out():
    """Debian's MPICH has QMPI compiled out: naming tardy in the tool list changes nothing."""
    @with_run([binary("p2p_counts")], 2, {"MPIR_CVAR_QMPI_TOOL_LIST": "tardy"})
    def _(run):
        check_p2p(run, 2)
        expect("tardy" not in run.err, "warnings: %s" % run.err[-600:])


def qtool_counts(run):
    """{rank: {function: calls}} from the lines qtool prints at MPI_Finalize."""
    out = {}
    for line in run.err.splitlines():
        m = re.match(r"qtool rank (\d+): (.*)$", line)
        if m:
            out[int(m.group(1))] = {k: int(v) for k, v in
                                    (kv.split("=") for kv in m.group(2).split())}
    return out


# Functions tardy does not call itself with TARDY_WAITS=0 (p2p_counts calls them all).
TARDY_NEVER_CALLS = ("MPI_Barrier", "MPI_Send", "MPI_Recv", "MPI_Comm_split")


def test_own_calls():
    """tardy's own MPI calls go through own_X (build/gen/own_calls.h), never PMPI_X: only the entry
    points themselves (generated, and Init/Finalize) call PMPI_X, and handle conversions
    (PMPI_X_f2c/c2f, which QMPI does not reach)."""
    bad = []
    paths = sorted(glob.glob("tool/*/*.[ch]") + glob.glob("mpit/*/*.[ch]"))
    expect(len(paths) > 40, "only %d sources found" % len(paths))
    for path in paths:
        if os.path.basename(path) == "init_finalize.c":
            continue
        for i, line in enumerate(open(path), 1):
            code = re.sub(r"/\*.*?(\*/|$)|^\s*\*.*", "", line)
            for m in re.finditer(r"\bPMPI_(\w+)\s*\(", code):
                if not re.search(r"_(f2c|c2f)$", m.group(1)):
                    bad.append("%s:%d: PMPI_%s" % (path, i, m.group(1)))
    expect(not bad, "call own_X instead: %s" % ", ".join(bad[:10]))


def test_layering():
    """tests/layering.py: no #include line or call between the built objects goes against
    the order of the rooms and of the wait-state layers in tool/README.md."""
    r = subprocess.run([sys.executable, "tests/layering.py", os.environ.get("B", "build")],
                       capture_output=True, text=True, timeout=300)
    print(r.stdout, end="")
    expect(r.returncode == 0 and "0 upward" in r.stdout, "layering: %s" % (r.stdout + r.stderr)[-1500:])


def test_qmpi_stack(order, ranks, waits):
    """A second QMPI tool in front of or behind tardy. tardy's own calls go to the tool after
    tardy's slot: a tool in front sees exactly the program's calls, a tool behind sees the
    program's calls plus tardy's own (as QMPI intends), and tardy's call paths still point at
    the program (not at the other tool's frames)."""
    env = {"TARDY_WAITS": str(waits)}
    base = Run([binary("p2p_counts")], ranks, dict(env, LD_PRELOAD=QTOOL,
                                                   MPIR_CVAR_QMPI_TOOL_LIST="qtool"), tool=False)
    try:
        want = qtool_counts(base)
        expect(base.rc == 0 and len(want) == ranks, "qtool alone: %s" % base.err[-600:])
    finally:
        base.cleanup()

    @with_run([binary("p2p_counts")], ranks, dict(env, LD_PRELOAD=QTOOL + " " + LIB,
                                                  MPIR_CVAR_QMPI_TOOL_LIST=order))
    def _(run):
        check_p2p(run, ranks)
        got = qtool_counts(run)
        expect(set(got) == set(want), "qtool with tardy (%s): %s" % (order, run.err[-600:]))
        for rank in sorted(want):
            g, w = got[rank], want[rank]
            diff = {f: (g[f], w[f]) for f in w if g.get(f) != w[f]}
            if order.startswith("qtool:"):
                expect(not diff, "rank %d: the tool in front saw other calls with tardy behind "
                       "it (with, without): %s" % (rank, diff))
                continue
            expect(all(g[f] >= w[f] for f in w), "rank %d: the tool behind missed calls of the "
                   "program: %s" % (rank, diff))
            expect(not any(f in diff for f in TARDY_NEVER_CALLS), "rank %d: calls tardy never "
                   "makes itself differ: %s" % (rank, diff))
            expect(g["MPI_Comm_dup"] > w["MPI_Comm_dup"], "rank %d: tardy's private "
                   "communicator did not reach the tool behind it: %s" % (rank, diff))


def test_broken_at_init():
    """A script that fails its check at MPI_Init: one warning, no second one at finalize."""
    @with_run([binary("exits"), "return", "3"], 2, {
        "TARDY_LUA": os.path.abspath("tests/lua/syntax_error.lua"), "TARDY_PREDICT": "p=8"})
    def _(run):
        expect(run.rc == 3, "exit %d" % run.rc)
        expect(run.profile is not None, "profile lost")
        expect(run.err.count("syntax_error.lua:3:") == 1, "warnings: %s" % run.err[-800:])
        expect("failed their check" in run.profile.get("prediction_note", ""), "note")

# ---- memory the MPI library allocates (issue 6) ----------------------------------------------

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
        expect(live_many <= live_few + 64 * max(ranks, 1),
               "live bytes grow with pairs: %d after 20 pairs, %d after 400 (allocated %d)" % (
                   live_few, live_many, alloc_many))
        expect(sum(mem(r, "freed_bytes") for r in many) >= alloc_many - live_many,
               "frees not charged back to the allocating call")


def test_mem_unmap(ranks):
    """munmap of the tail, the head and the middle of a 5-page mapping made inside an MPI call:
    3 pages freed and 2 still live, all charged to the call that mapped them (before: the
    head's munmap freed all 5 pages and the others nothing)."""
    src, page = "tests/mpi/mem_unmap.c", os.sysconf("SC_PAGESIZE")

    @with_run([binary("mem_unmap")], ranks)
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        mapped = len(re.findall(r"^unmap rank \d+: all$", run.out, re.M))
        expect(mapped >= 1, "the reduction ran on no rank: %r" % run.out)
        row = one_row(run.profile, "MPI_Allreduce", src, "map")
        alloc, freed, live = mem(row), mem(row, "freed_bytes"), mem(row, "live_bytes")
        # The library's own small blocks at this call are allocated and freed within it.
        extra = alloc - 5 * page * mapped
        expect(live == 2 * page * mapped and extra >= 0 and freed - extra == 3 * page * mapped,
               "allocated %d, freed %d, live %d; expected 5, 3, 2 pages (of %d) per rank on %d "
               "ranks" % (alloc, freed, live, page, mapped))


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
    """Runs at 1, 2, 4 ranks in a store, the last predicting p=64 at finalize: the default
    policy predicts the MPI library's memory per process there, per rank and for the MPI_Init
    call path, finite and flagged as extrapolated."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for n in (1, 2, 4):
            env = {"TARDY_STORE": store}
            if n == 4:
                env["TARDY_PREDICT"] = "p=64"

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
                           got[0]["target"] == "p=64", "prediction %s" % got[0])
    finally:
        shutil.rmtree(store, ignore_errors=True)

def test_docs_example():
    """The worked example of docs/lua-api.md runs and predicts Amdahl data exactly."""
    text = open("docs/lua-api.md").read()
    m = re.search(r"<!-- example: my.lua -->\s*```lua\n(.*?)```", text, re.S)
    expect(m, "no example in docs/lua-api.md")
    work = tempfile.mkdtemp(prefix="tardy-doc-")
    try:
        script, data = os.path.join(work, "my.lua"), os.path.join(work, "app.extrap")
        open(script, "w").write(m.group(1))
        with open(data, "w") as f:
            f.write("PARAMETER p\nPOINTS 2 4 8 16\nREGION ranks/mpi\n")
            for metric in ("mean", "max"):
                f.write("METRIC %s\n" % metric + "".join(
                    "DATA %r\n" % (0.5 + 8.0 / p) for p in (2, 4, 8, 16)))
            f.write("REGION MPI_Allreduce@main app.c:10\nMETRIC time_mean\n" + "".join(
                "DATA %r\n" % (0.1 + 0.01 * p) for p in (2, 4, 8, 16)))
        out, _err = predict_json(["--extrap", data, "--at", "p=64", "--lua", script,
                                  "--policy", "mpi_outlook"])
        got = by_metric(out["predictions"])
        mpi = got.get(("p=64", "MPI time per rank, max (s)"))
        expect(mpi and abs(mpi["value"] - 0.625) < 1e-9 and mpi["extrapolated"], "mpi: %s" % mpi)
        call = got.get(("p=64", "MPI_Allreduce@main app.c:10 time per rank (s)"))
        expect(call and abs(call["value"] - 0.74) < 1e-6, "call path: %s" % call)
        out, _err = predict_json(["--extrap", data, "--at", "p=64", "--lua", script])
        fams = {q["family"] for q in out["predictions"]}
        expect("amdahl" in fams, "the default policy did not use the user's family: %s" % fams)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_api_metrics():
    """Every statistic the profile holds reaches Lua under its name (memory included), with
    the same value, for MPI rows, intervals and per-rank metrics."""
    src = "tests/mpi/p2p_counts.c"

    @with_run([binary("p2p_counts")], 2, {
        "TARDY_LUA": os.path.abspath("tests/lua/api.lua"), "TARDY_POLICY": "api_dump",
        "TARDY_PREDICT": "p=2", "TARDY_PARAMS": "n=7"})
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d %s" % (run.rc, run.err[-600:]))
        prof = run.profile
        got = {q["metric"]: q["value"] for q in prof.get("predictions", [])}
        expect(got, "no predictions: %s" % prof.get("prediction_note"))
        send = one_row(prof, "MPI_Send", src, "send100")
        keys = [k for k in got if k.startswith("mpi|MPI_Send@") and k.endswith("|sent|sum")]
        expect(any(got[k] == send["sent"]["sum"] for k in keys), "sent bytes: %s" % keys)
        init = mpi_rows(prof, "MPI_Init")[0]
        key = [k for k in got if k.startswith("mpi|MPI_Init@") and "|memory_live|max" in k]
        expect(key and got[key[0]] == init["memory"]["live_bytes"]["max"],
               "MPI_Init memory held: %s vs %s" % (key, init.get("memory")))
        for stat, name in (("allocs", "memory_allocs"), ("alloc_bytes", "memory_allocated"),
                           ("freed_bytes", "memory_freed")):
            k = [x for x in got if x.startswith("mpi|MPI_Init@") and "|%s|sum" % name in x]
            expect(k and got[k[0]] == init["memory"][stat]["sum"], "%s: %s" % (name, k))
        for name, stat in prof["ranks"].items():
            if isinstance(stat, dict) and "sum" in stat and stat["ranks"]:
                expect(got.get("rank|%s|value|max" % name) == stat["max"] and
                       got.get("rank|%s|time|sum" % name) == stat["sum"], "rank %s" % name)
        expect(got.get("rank|compute|value|p50") is not None, "compute quantiles")
        n_iv = sum(1 for k in got if k.startswith("interval|") and k.endswith("|count|sum"))
        expect(n_iv == len(prof["intervals"]),
               "%d of %d intervals" % (n_iv, len(prof["intervals"])))
        for k, v in got.items():
            if k.endswith("|p90"):
                expect(v <= got[k[:-4] + "|max"] * 1.000001 + 1e-12, "p90 > max: %s" % k)


def test_api_counters():
    """PAPI counters of rows reach Lua under their event names, and the default policy
    predicts them per interval and call path."""
    @with_run([binary("sde_counters")], 2, {
        "TARDY_PAPI": WORK + "," + INMPI, "TARDY_LUA": os.path.abspath("tests/lua/api.lua"),
        "TARDY_POLICY": "api_dump", "TARDY_PREDICT": "p=2"})
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d %s" % (run.rc, run.err[-600:]))
        got = {q["metric"]: q["value"] for q in run.profile.get("predictions", [])}
        n = 0
        for kind, rows in (("mpi", run.profile["mpi"]), ("interval", run.profile["intervals"])):
            for r in rows:
                for event, st in r.get("counters", {}).items():
                    keys = [k for k in got if k.startswith(kind + "|") and
                            k.endswith("|%s|sum" % event) and got[k] == st["sum"]]
                    expect(keys, "%s counter %s = %s not in Lua" % (kind, event, st["sum"]))
                    n += 1
        expect(n > 0, "no counters in the profile: %s" % run.profile.get("counters"))


JACOBI = os.path.abspath(os.path.join(B, "examples", "jacobi"))
SIZES = (48, 64, 80, 96)
TARGET = "p=2,n=192"
QUANTILE_METRICS = ("90th percentile", "median")  # need the per-rank histograms of a profile


def by_metric(predictions):
    return {(q["target"], q["metric"]): q for q in predictions}


def same_predictions(a, b, what, skip=()):
    """a and b (lists of predictions) hold the same metrics and values (b may lack those whose
    metric contains a string of skip)."""
    pa, pb = by_metric(a), by_metric(b)
    missing = [k for k in pa if k not in pb and not any(s in k[1] for s in skip)]
    extra = [k for k in pb if k not in pa]
    expect(not missing and not extra, "%s: missing %s, extra %s" % (what, missing[:3], extra[:3]))
    for k in pb:
        va, vb = pa[k]["value"], pb[k]["value"]
        expect(abs(va - vb) <= 1e-9 * max(abs(va), 1e-300), "%s: %s %r vs %r" % (what, k, va, vb))


def predict_json(args):
    p = subprocess.run(["timeout", str(TIMEOUT), TARDY, "predict", "--json"] + args,
                       capture_output=True, text=True)
    expect(p.returncode == 0, "tardy predict %s: %s" % (" ".join(args), p.stderr[-800:]))
    return json.loads(p.stdout), p.stderr


def test_store_predictions():
    """Acceptance 7(c): jacobi at 4 sizes and 1, 2, 4 ranks fills a store; the prediction for a
    larger size made at finalize equals the one `tardy predict` makes offline from the store
    and from its Extra-P export; a run with too few runs before it says so; corrupt, foreign
    and other programs' files are skipped with a warning naming them."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        final = None
        for ranks in (1, 2, 4):
            for n in SIZES:
                env = {"TARDY_STORE": store, "TARDY_PARAMS": "n=%d" % n}
                second, last = (ranks, n) == (1, SIZES[1]), (ranks, n) == (4, SIZES[-1])
                if second or last:
                    env["TARDY_PREDICT"] = TARGET
                run = Run([JACOBI, str(n), "20"], ranks, env)
                try:
                    expect(run.rc == 0 and run.profile, "jacobi -n %d n=%d: exit %d %s" % (
                        ranks, n, run.rc, run.err[-600:]))
                    if second:
                        expect(not run.profile.get("predictions") and "too few runs" in
                               run.profile.get("prediction_note", ""), "2 runs: %s %s" % (
                                   run.profile.get("predictions"),
                                   run.profile.get("prediction_note")))
                    if last:
                        final = run.profile
                        expect("== predictions" in run.summary, "no predictions in the summary")
                finally:
                    run.cleanup()
        got = by_metric(final["predictions"])
        head = got.get(("n=192,p=2", "per-rank compute time, max (s)"))
        expect(head and head["extrapolated"] and "uncertainty_pct" in head and
               "fit_error_pct" in head, "headline prediction: %s" % head)
        expect(len(glob.glob(os.path.join(store, "*.json"))) == 12, "store holds %d runs" %
               len(glob.glob(os.path.join(store, "*.json"))))
        # files the store must skip, each named in a warning
        open(os.path.join(store, "tardy-broken.json"), "w").write('{"schema": "tardy-prof')
        open(os.path.join(store, "notes.json"), "w").write('{"hello": 1}\n')
        other = Run([binary("exits"), "return", "0"], 1, {"TARDY_STORE": store})
        other.cleanup()
        shallow = Run([JACOBI, "64", "5"], 1, {"TARDY_STORE": store, "TARDY_DEPTH": "0"})
        shallow.cleanup()
        offline, err = predict_json(["--store", store, "--at", TARGET])
        for name in ("tardy-broken.json", "notes.json", "tardy-exits-", "other MPI call sites"):
            expect(name in err, "no warning naming %s: %s" % (name, err[-800:]))
        same_predictions(final["predictions"], offline["predictions"], "finalize vs offline")
        extrap = os.path.join(store, "extrap.txt")
        p = subprocess.run([TARDY, "export-extrap", "--store", store, "-o", extrap],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "export-extrap: %s" % p.stderr)
        back, _err = predict_json(["--extrap", extrap, "--at", TARGET])
        same_predictions(offline["predictions"], back["predictions"], "store vs Extra-P export",
                         QUANTILE_METRICS)
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_extrap_foreign():
    """An Extra-P file not written by tardy: every region/metric is predicted."""
    path = tempfile.mktemp(suffix=".txt", prefix="extrap-")
    try:
        with open(path, "w") as f:
            f.write("PARAMETER p\nPOINTS 2 4 8 16 32\nREGION solve\nMETRIC time\n")
            for p in (2, 4, 8, 16, 32):
                f.write("DATA %r %r\n" % (1 + 64.0 / p, 1.01 * (1 + 64.0 / p)))
        out, _err = predict_json(["--extrap", path, "--at", "p=128"])
        got = by_metric(out["predictions"]).get(("p=128", "solve/time, max per rank"))
        want = 1.005 * (1 + 64 / 128.0)
        expect(got and abs(got["value"] - want) <= 0.01 * want, "solve/time at p=128: %s" % got)
        open(path, "w").write("PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA 1\nDATA x\n")
        p = subprocess.run([TARDY, "predict", "--extrap", path, "--at", "p=8"],
                           capture_output=True, text=True)
        expect(p.returncode == 1 and "%s:6:" % path in p.stderr, "bad file: %s" % p.stderr)
    finally:
        os.unlink(path)


def test_extrap_counters():
    """PAPI counters and wait states go through the Extra-P export and back: sde_counters at
    1 to 4 ranks (its WORK counter grows with the rank; with "late" the last rank makes the
    others wait at a barrier, and incidental waits elsewhere differ from run to run, so some
    runs lack some rows) predicts the same from the store and from its export."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for ranks in (1, 2, 3, 4):
            run = Run([binary("sde_counters"), "late"], ranks, {
                "TARDY_STORE": store, "TARDY_PAPI": WORK + "," + INMPI, "TARDY_WAITS": "1"})
            try:
                expect(run.rc == 0 and run.profile, "-n %d: exit %d %s" % (
                    ranks, run.rc, run.err[-600:]))
            finally:
                run.cleanup()
        offline, _err = predict_json(["--store", store, "--at", "p=8"])
        metrics = [q["metric"] for q in offline["predictions"]]
        for what in (WORK, "wait wait_at_barrier", "cause wait_at_barrier"):
            expect(any(what in m for m in metrics), "no prediction of %s: %s" % (what, metrics))
        extrap = os.path.join(store, "extrap.txt")
        p = subprocess.run([TARDY, "export-extrap", "--store", store, "-o", extrap],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "export-extrap: %s" % p.stderr)
        back, _err = predict_json(["--extrap", extrap, "--at", "p=8"])
        same_predictions(offline["predictions"], back["predictions"], "store vs Extra-P export",
                         QUANTILE_METRICS)
    finally:
        shutil.rmtree(store, ignore_errors=True)


# ---- wait states (issue 3) -------------------------------------------------------------------

WAIT_SRC = "tests/mpi/waits_accuracy.c"
# scenario: (pattern, waiting function, its marker, cause interval from marker, to marker)
WAIT_SCENARIOS = {
    "late_sender": ("late_sender", "MPI_Recv", "ls_recv", "sync_ls", "ls_send"),
    "barrier": ("wait_at_barrier", "MPI_Barrier", "op_barrier", "sync_bar", "op_barrier"),
    "allreduce": ("wait_at_nxn", "MPI_Allreduce", "op_allreduce", "sync_ar", "op_allreduce"),
    "bcast": ("late_broadcast", "MPI_Bcast", "op_bcast", "sync_bc", "op_bcast"),
    "reduce": ("early_reduce", "MPI_Reduce", "op_reduce", "sync_red", "op_reduce"),
    "scan": ("early_scan", "MPI_Scan", "op_scan", "sync_scan", "op_scan"),
    "iallreduce": ("wait_at_nxn", "MPI_Wait", "op_iwait", "sync_iar", "op_iallreduce"),
    "alltoallv": ("wait_at_nxn", "MPI_Alltoallv", "op_a2av", "sync_a2av", "op_a2av"),
    "irecv": ("late_sender", "MPI_Waitall", "ls2_wait", "sync_irecv", "ls2_send"),
    "ssend": ("late_receiver", "MPI_Ssend", "lr_ssend", "sync_lr", "lr_recv"),
    "issend": ("late_receiver", "MPI_Wait", "lr2_wait", "sync_lr2", "lr2_recv"),
    "ssend_init": ("late_receiver", "MPI_Waitall", "lr3_wait", "sync_lr3", "lr3_recv"),
    "issend_pair": ("late_receiver", "MPI_Waitall", "lr4_wait", "sync_lr4", "lr4_irecv"),
    "cancelled_send": ("late_sender", "MPI_Recv", "cs_recv", "sync_cs2", "cs_send"),
    "wrong_order": ("late_sender_wrong_order", "MPI_Recv", "wo_recv", "wo_early", "wo_late"),
    "wrong_order_src": ("late_sender_wrong_order", "MPI_Recv", "wo2_recv", "sync_wo2",
                        "wo2_late"),
}
WAIT_SCENARIOS_3 = ("wrong_order_src",)   # need 3 ranks or more


def wait_truth(out):
    """{scenario: ([true wait per rank], late rank)} from the program's "truth" lines."""
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 5 and f[0] == "truth":
            waits, _ = got.setdefault(f[1], ([], int(f[4])))
            waits.append(float(f[3]))
    return got


def wait_rows(prof, pattern, function, marker, src=WAIT_SRC):
    return [w for w in prof.get("waits", []) if w["pattern"] == pattern and
            w["function"] == function and at_site(prof, w, src, marker)]


def close(got, want):
    """Within max(5%, 100 us) of the truth."""
    return abs(got - want) <= max(0.05 * want, 100e-6)


def check_wait(prof, scenario, truth, scenarios=WAIT_SCENARIOS, src=WAIT_SRC):
    pattern, fn, marker, c_from, c_to = scenarios[scenario]
    waits, late = truth
    waiting = [w for w in waits if w > 0.02]
    rows = wait_rows(prof, pattern, fn, marker, src)
    expect(len(rows) == 1, "%s: %d %s rows at @site %s" % (scenario, len(rows), pattern, marker))
    row = rows[0]
    t = row["time"]
    expect(t["ranks"] == len(waiting), "%s: %d ranks waited, truth %d (%s)" %
           (scenario, t["ranks"], len(waiting), waits))
    expect(close(t["sum"], sum(waiting)) and close(t["max"], max(waiting)),
           "%s: waited %.6f s (max %.6f), truth %.6f (max %.6f)" %
           (scenario, t["sum"], t["max"], sum(waiting), max(waiting)))
    expect(row["late"]["max_rank"] == late, "%s: late rank %s, truth %d" %
           (scenario, row["late"]["max_rank"], late))
    causes = [c for c in prof["wait_causes"] if c["pattern"] == pattern and
              c["site"]["function"] == fn and at_site(prof, c["site"], src, marker)]
    expect(causes, "%s: no causes" % scenario)
    top = max(causes, key=lambda c: c["cost"]["sum"])
    region = top["region"]
    expect("from" in region and at_site(prof, region["from"], src, c_from) and
           at_site(prof, region["to"], src, c_to),
           "%s: top cause %s, expected @%s -> @%s" % (scenario, region, c_from, c_to))
    share = top["cost"]["sum"] / t["sum"]
    expect(share >= 0.90, "%s: top cause has %.1f%% of the wait" % (scenario, 100 * share))


def test_waits(ranks, env=None, args=()):
    @with_run([binary("waits_accuracy")] + list(args), ranks, dict(env or {}, TARDY_WAITS="1"))
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
        expect(run.profile is not None, "no profile")
        truth = wait_truth(run.out)
        want = set(s for s in WAIT_SCENARIOS if ranks > 2 or s not in WAIT_SCENARIOS_3)
        expect(set(truth) == want, "scenarios printed: %s" % sorted(truth))
        for scenario in sorted(want):
            check_wait(run.profile, scenario, truth[scenario])
        for marker in ("wo_recv", "wo2_recv"):   # moved from late_sender, not counted twice
            expect(not wait_rows(run.profile, "late_sender", "MPI_Recv", marker),
                   "a wrong-order wait also counted as late_sender at @site %s" % marker)
        expect("== wait states" in run.summary, "no wait-state section in the summary")
        section = run.summary.split("== wait states")[1].split("\n== ")[0]
        width = max(len(line) for line in section.splitlines())
        expect(width <= 100, "wait-state summary line of %d columns" % width)
        # the JSON profile keeps everything the section shows
        path = glob.glob(os.path.join(run.dir, "tardy-*.json"))[0]
        p = subprocess.run([TARDY, "report", path], capture_output=True, text=True)
        expect(p.returncode == 0 and "== wait states" in p.stdout, "report: %s" % p.stderr)
        again = p.stdout.split("== wait states")[1].split("\n== ")[0]
        expect(again == section, "tardy report's wait states differ:\n%s---\n%s" %
               (again, section))
        if "TARDY_WAITS_RESYNC_MS" in (env or {}):
            resyncs = run.profile["ranks"].get("clock_resyncs", {}).get("max", 0)
            expect(resyncs >= 3, "clocks resynchronised %s times" % resyncs)


def test_waits_off(env):
    """Off by default and with TARDY_WAITS=0."""
    @with_run([binary("waits_accuracy")], 2, env)
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d" % run.rc)
        expect(not run.profile["waits"] and "wait_time" not in run.profile["ranks"],
               "wait states recorded with %s" % env)


def test_waits_threads():
    """Three threads per rank exchange messages at once, wait states on."""
    @with_run([binary("threads")], 2, {"TARDY_WAITS": "1"})
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
        n = 3 * 20
        check_calls(run, "tests/mpi/threads.c", [
            ("MPI_Send", "tsend", n, n * 64), ("MPI_Recv", "trecv", n, n * 64),
            ("MPI_Recv", "trecv2", n, n * 64), ("MPI_Send", "tsend2", n, n * 64)])
        expect("wait_time" in run.profile["ranks"], "no wait states")


def test_waits_semantics(ranks):
    """The program's data, statuses and counts are the same with and without tardy."""
    runs = [Run([binary("waits_semantics")], ranks, {"TARDY_WAITS": "1"}, tool=t)
            for t in (True, False)]
    try:
        with_tool, without = runs
        expect(with_tool.rc == 0 and without.rc == 0, "exit %d / %d: %s" %
               (with_tool.rc, without.rc, with_tool.err[-1500:]))
        expect(with_tool.out == without.out and "done" in without.out,
               "output differs under tardy:\n%s---\n%s" % (with_tool.out[-1500:],
                                                          without.out[-1500:]))
        expect(with_tool.profile and with_tool.profile["waits"] is not None, "no profile")
    finally:
        for r in runs:
            r.cleanup()


WAIT_F_SCENARIOS = {
    "late_sender": ("late_sender", "MPI_Recv", "ls_recv", "sync_ls", "ls_send"),
    "barrier": ("wait_at_barrier", "MPI_Barrier", "op_barrier", "sync_bar", "op_barrier"),
    "waitany": ("late_sender", "MPI_Waitany", "ls2_wait", "sync_irecv", "ls2_send"),
}


def test_waits_fortran(ranks, name="waits_fortran"):
    """Wait states of a `use mpi` (or `use mpi_f08`) program: through the Fortran entry points
    only."""
    @with_run([binary(name)], ranks, {"TARDY_WAITS": "1"})
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
        expect(run.profile is not None, "no profile")
        truth = wait_truth(run.out)
        expect(set(truth) == set(WAIT_F_SCENARIOS), "scenarios printed: %s" % sorted(truth))
        # the library's index, unchanged (MPICH 4.0's mpi_f08 counts from 0)
        base = 0 if name.endswith("_f08") and re.search(
            r"MPICH Version:\s*4\.0\.", run.profile["run"]["mpi_library"]) else 1
        expect("waitany index %d" % (base + 1) in run.out, "index: %r" % run.out[-300:])
        for scenario in WAIT_F_SCENARIOS:
            check_wait(run.profile, scenario, truth[scenario], WAIT_F_SCENARIOS,
                       "tests/mpi/waits_fortran.F90")


# ---- MPI_T per call: performance variables as counter columns -----------------------------

PVC_SRC = "tests/mpi/pvar_counters.c"
# The unexpected-message queue of each library: MPICH's ch3 (the QMPI build, configured with
# --enable-mpit-pvars=all) counts every communicator's; Open MPI's ob1 one element per peer of
# MPI_COMM_WORLD. Debian's MPICH (ch4) has no performance variables at all.
PVC_NAME = "unexpected_recvq_length" if mpich_like() else "pml_ob1_unexpected_msgq_length"
PVC_HAS = QMPI or not mpich_like()


def test_pvar_counters(ranks):
    """A performance variable read at every MPI call: the queue of unexpected messages grows by
    exactly the messages that arrived in the marked barrier and shrinks by one per receive; no
    other call or interval of the receiving ranks changes it. Where the library has no such
    variable: no column, a note, no warning."""
    @with_run([binary("pvar_counters")], ranks, {"TARDY_PVAR_COUNTERS": PVC_NAME})
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        expect("tardy" not in run.err, "warnings: %s" % run.err[-600:])
        meta, col, pairs = run.profile["counters"], "mpi_t:" + PVC_NAME, ranks // 2
        if not PVC_HAS:
            expect(meta["events"] == [] and "no performance variable matching" in meta["note"],
                   "counters %s" % meta)
            expect(not any("counters" in r for r in run.profile["mpi"]), "counter columns")
            return
        expect(meta["events"] == [col] and meta["source"] == "MPI_T", "counters %s" % meta)
        prof = run.profile
        got = {m: one_row(prof, f, PVC_SRC, m)["counters"][col] for f, m in (
            ("MPI_Ssend", "go"), ("MPI_Barrier", "arrive"), ("MPI_Recv", "drain"),
            ("MPI_Send", "done"))}
        for marker, want in (("go", 0), ("arrive", 5), ("drain", -5), ("done", 0)):
            c = got[marker]
            expect(c["sum"] == want * pairs and c["min"] == want and c["max"] == want and
                   c["ranks"] == pairs, "%s at @site %s: %s" % (col, marker, c))
        even = ("go", "arrive", "drain", "done")
        ivs = [i for i in prof["intervals"] if any(at_site(prof, i["from"], PVC_SRC, a)
                                                   for a in even)
               and any(at_site(prof, i["to"], PVC_SRC, b) for b in even)]
        expect(len(ivs) == 4 and all(i["counters"][col]["sum"] == 0 for i in ivs),
               "intervals between the receiving ranks' calls: %s" % [
                   i["counters"][col] for i in ivs])
        expect("MPI_T performance variables per call" in run.summary, "summary")


def test_pvar_counters_with_sde():
    """PAPI events and a performance variable share the counter columns: the SDE counts stay
    exact, the variable comes after them (where the library has it)."""
    @with_run([binary("sde_counters")], 2, {"TARDY_PAPI": WORK + "," + INMPI,
                                            "TARDY_PVAR_COUNTERS": PVC_NAME})
    def _(run):
        check_sde(run, 2, [WORK, INMPI] + (["mpi_t:" + PVC_NAME] if PVC_HAS else []))
        src = run.profile["counters"]["source"]
        expect(src == ("PAPI,MPI_T" if PVC_HAS else "PAPI"), "source %s" % src)
        expect("tardy" not in run.err, "warnings: %s" % run.err[-600:])


# ---- MPI_T events, from a test library (no MPI library here has any) ------------------------

FAKE_EVENTS = os.path.abspath(os.path.join(B, "tests", "mpit", "libfake_events.so"))


def test_mpit_events(ranks):
    """tests/mpit/fake_events.c preloaded in front of tardy provides three MPI_T events and
    fires them inside PMPI_Barrier (2 each), PMPI_Send (1 each) and at registration (3, outside
    any call of the program): tardy counts each per call path, exactly. On the QMPI MPICH the
    library is a QMPI tool behind tardy and fires in its slot."""
    if not mpich_like():
        raise Skip("Open MPI 4.1 implements MPI 3.1: no MPI_T events interface")
    src = "tests/mpi/mpit_events.c"
    env = {"LD_PRELOAD": FAKE_EVENTS + " " + LIB}
    if QMPI:  # the test library behind tardy: it gets tardy's own MPI_T calls from its slot
        env["MPIR_CVAR_QMPI_TOOL_LIST"] = "tardy:fakeev"

    @with_run([binary("mpit_events")], ranks, env)
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        mt = run.profile["mpi_t"]
        expect(mt["events_total"] == 3, "events_total %s" % mt["events_total"])
        procs = max(ranks, 1)
        want = {("fake_barrier", "ev_barrier"): (6, procs), ("fake_outside", None): (3, procs)}
        if procs > 1:
            want[("fake_send", "ev_send")] = (4, 1)
        got = {}
        for e in mt["events"]:
            if e["function"] == "(outside MPI calls)":
                key = (e["event"], None)
            else:
                marker = "ev_barrier" if e["function"] == "MPI_Barrier" else "ev_send"
                expect(at_site(run.profile, e, src, marker), "%s at another site: %s" %
                       (e["event"], frames_of(run.profile, e["callpath"])))
                key = (e["event"], marker)
            expect(key not in got, "two rows for %s" % (key,))
            got[key] = e["count"]
        expect(set(got) == set(want), "event rows %s, expected %s" % (sorted(got), sorted(want)))
        for key, (per_rank, nranks) in want.items():
            c = got[key]
            expect(c["min"] == per_rank and c["max"] == per_rank and c["ranks"] == nranks and
                   c["sum"] == per_rank * nranks, "%s: %s" % (key, c))
        expect("fake_barrier" in run.summary, "summary lacks the events")
WAIT_N_SRC = "tests/mpi/waits_neighbor.c"
WAIT_N_SCENARIOS = {
    "cart": ("wait_at_nxn", "MPI_Neighbor_allgather", "op_cart", "sync_cart", "op_cart"),
    "graph": ("wait_at_nxn", "MPI_Neighbor_alltoall", "op_graph", "sync_graph", "op_graph"),
    "dist_graph": ("wait_at_nxn", "MPI_Wait", "op_dgwait", "sync_dg", "op_dg"),
}


def test_waits_neighbor(ranks, env=None):
    """Neighbourhood collectives on cartesian, graph and distributed-graph topologies: each
    rank waits for its latest in-neighbour only (ranks whose neighbours are early wait not)."""
    @with_run([binary("waits_neighbor")], ranks, dict(env or {}, TARDY_WAITS="1"))
    def _(run):
        expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
        expect(run.profile is not None, "no profile")
        expect("data ok" in run.out, "wrong data under tardy: %s" % run.out[-800:])
        truth = wait_truth(run.out)
        expect(set(truth) == set(WAIT_N_SCENARIOS), "scenarios printed: %s" % sorted(truth))
        for scenario in WAIT_N_SCENARIOS:
            check_wait(run.profile, scenario, truth[scenario], WAIT_N_SCENARIOS, WAIT_N_SRC)


CASES = []


def case(name):
    def add(fn):
        CASES.append((name, fn))
        return fn
    return add


for _b in sorted(glob.glob(os.path.join(B, "tests/unit/test_*"))):
    CASES.append(("unit/" + os.path.basename(_b), lambda b=_b: test_unit(b)))

for _n in (1, 2, 4):
    CASES.append(("mpi/p2p_counts -n %d" % _n, lambda n=_n: test_p2p(n)))
CASES.append(("mpi/p2p_counts singleton", lambda: test_p2p(0)))
CASES.append(("mpi/p2p_counts linked with -ltardy", test_linked))
for _d in (0, 1, 64):
    CASES.append(("mpi/p2p_counts TARDY_DEPTH=%d" % _d, lambda d=_d: test_depth(d)))
CASES.append(("mpi/families of the spec -n 2", lambda: test_families(2)))
CASES.append(("mpi/families of the spec -n 4", lambda: test_families(4)))
for _n in (1, 2):
    CASES.append(("mpi/fortran use mpi -n %d" % _n, lambda n=_n: test_fortran("fortran", n)))
    CASES.append(("mpi/fortran use mpi_f08 -n %d" % _n, lambda n=_n: test_fortran("fortran_f08", n)))
CASES.append(("mpi/c++ -n 2", lambda: test_cxx(2)))
CASES.append(("mpi/MPI_THREAD_MULTIPLE -n 2", lambda: test_threads(2)))
CASES.append(("mpi/exit code after MPI_Finalize", lambda: test_exit("return", 3)))
CASES.append(("mpi/exit code of MPI_Abort", lambda: test_exit("abort", 7)))
CASES.append(("mpi/exit without MPI_Finalize", lambda: test_exit("exit", 5)))
CASES.append(("mpi/output unchanged", lambda: test_exit("print", 0)))
CASES.append(("config/bad integer", lambda: test_bad_option({"TARDY_DEPTH": "abc"}, "TARDY_DEPTH=abc")))
CASES.append(("config/out of range", lambda: test_bad_option({"TARDY_DEPTH": "99"}, "TARDY_DEPTH=99")))
CASES.append(("config/misspelt option", lambda: test_bad_option(
    {"TARDY_DEPHT": "4"}, "did you mean TARDY_DEPTH?")))
CASES.append(("config/unwritable profile directory", lambda: test_bad_option(
    {"TARDY_PROFILE": "/nonexistent/dir"}, "no profile written", profile=False)))
CASES.append(("config/TARDY_ENABLE=0", test_disabled))
CASES.append(("cli/tardy report", test_report_cli))
CASES.append(("cli/make install", test_install))
for _n in (1, 2, 4):
    CASES.append(("counters/SDE exact -n %d" % _n, lambda n=_n: test_sde(n)))
CASES.append(("counters/SDE exact singleton", lambda: test_sde(0)))
CASES.append(("counters/SDE with a disabled event", lambda: test_sde(2, ",PAPI_L1_DCM")))
CASES.append(("counters/no such event", lambda: test_counters_unavailable(
    "NO_SUCH_EVENT", "PAPI event NO_SUCH_EVENT is not read")))
CASES.append(("counters/hardware event without a PMU", lambda: test_counters_no_pmu()))
CASES.append(("counters/off without TARDY_PAPI", test_counters_off))
CASES.append(("counters/multiplexing not possible", test_counters_multiplex))
CASES.append(("counters/tardy report", test_counters_report))
for _n in (1, 2):
    CASES.append(("mpit/control variables recorded -n %d" % _n, lambda n=_n: test_mpit_record(n)))
CASES.append(("mpit/control variables recorded singleton", lambda: test_mpit_record(0)))
CASES.append(("mpit/TARDY_CVARS writes after MPI_Init", test_mpit_write))
CASES.append(("mpit/TARDY_CVARS bad names and values", test_mpit_bad_writes))
CASES.append(("mpit/TARDY_MPIT=0", test_mpit_off))
CASES.append(("qmpi/tardy's own calls go through own_X", test_own_calls))
CASES.append(("layout/rooms and layers as tool/README.md orders them", test_layering))
if QMPI:
    for _n, _w in ((2, 0), (2, 1), (4, 1)):
        CASES.append(("qmpi/second tool in front of tardy sees the program's calls only -n %d%s"
                      % (_n, " TARDY_WAITS=1" if _w else ""),
                      lambda n=_n, w=_w: test_qmpi_stack("qtool:tardy", n, w)))
    CASES.append(("qmpi/second tool behind tardy sees the program's and tardy's calls -n 2",
                  lambda: test_qmpi_stack("tardy:qtool", 2, 0)))
else:
    CASES.append(("qmpi/tool list on an MPICH without QMPI", test_qmpi_compiled_out))
# Messages below the eager limit, or the sends wait for receives that come after them: MPICH's
# shared memory sends 4 KiB eagerly, Open MPI's vader BTL 4 KiB including ob1's header.
UNEXPECTED_SIZE = 4096 if mpich_like() else 2048
CASES.append(("memory/unexpected eager messages -n 2",
              lambda: test_mem_unexpected(2048, UNEXPECTED_SIZE)))
# Not at 4 ranks on 2 cores: there the duplicates' internal allreduce meets late partners at
# random, and the unexpected messages the library buffers for them (legitimately held pool
# memory) land in either loop.
for _n in (0, 1, 2):
    CASES.append(("memory/Comm_dup/free pairs %s" % ("singleton" if _n == 0 else "-n %d" % _n),
                  lambda n=_n: test_mem_dup(n)))
CASES.append(("memory/munmap of part of a mapping -n 2", lambda: test_mem_unmap(2)))
for _n in (1, 2):
    CASES.append(("memory/application malloc loop -n %d" % _n, lambda n=_n: test_mem_app(n)))
for _lib in ("libjemalloc.so.2", "libtcmalloc_minimal.so.4"):
    CASES.append(("memory/%s preloaded first" % _lib, lambda l=_lib: test_mem_other_malloc(l)))
CASES.append(("memory/fork after MPI_Init, MPI_THREAD_MULTIPLE -n 2", lambda: test_mem_fork(2)))
CASES.append(("memory/prediction of MPI memory at p=64 from 1, 2, 4 ranks", test_mem_predict))
CASES.append(("lua/scalaextrap reproduces seed 000", test_seed000))
CASES.append(("lua/pmnf recovers laws 4x beyond the data", test_recovery))
for _policy, _needle in (("runtime_error", None), ("endless", None), ("memory_bomb", None),
                         ("garbage", None), ("nan_value", None),
                         ("undefined_global", "no_such_variable"),
                         ("no_such_policy", "no policy named 'no_such_policy'")):
    CASES.append(("lua/broken script: %s" % _policy,
                  lambda p=_policy, n=_needle: test_broken_script(p, n)))
CASES.append(("lua/broken script: syntax error", lambda: test_broken_script(
    "syntax", "syntax_error.lua:3:", "tests/lua/syntax_error.lua")))
for _policy in ("runtime_error", "endless", "memory_bomb", "garbage", "nan_value"):
    CASES.append(("lua/failing script in a job: %s" % _policy,
                  lambda p=_policy: test_broken_in_job(p)))
CASES.append(("lua/script failing its check at MPI_Init", test_broken_at_init))
CASES.append(("lua/store: finalize, offline and Extra-P predictions agree", test_store_predictions))
CASES.append(("lua/Extra-P file as input", test_extrap_foreign))
CASES.append(("lua/Extra-P export carries counters and wait states", test_extrap_counters))
CASES.append(("lua/docs example", test_docs_example))
CASES.append(("lua/API: every statistic of every row", test_api_metrics))
CASES.append(("lua/API: PAPI counters of every row", test_api_counters))

for _n in (2, 4):
    CASES.append(("waits/accuracy -n %d" % _n, lambda n=_n: test_waits(n)))
CASES.append(("waits/accuracy -n 4, rank 2's clock +0.5 s", lambda: test_waits(
    4, {"TARDY_TEST_CLOCK_SHIFT": "2:0.5"})))
CASES.append(("waits/accuracy -n 2, rank 1's clock -0.3 s", lambda: test_waits(
    2, {"TARDY_TEST_CLOCK_SHIFT": "1:-0.3"})))
# A clock drifting 1% (10 ms a second) is 20 ms off after the two seconds of the drift mode:
# without resynchronisation these fail; with it, waits are within max(5%, 100 us) again.
CASES.append(("waits/accuracy -n 2, rank 1's clock +0.2 s drifting +1%, resync 300 ms",
              lambda: test_waits(2, {"TARDY_TEST_CLOCK_SHIFT": "1:0.2:0.01",
                                     "TARDY_WAITS_RESYNC_MS": "300"}, ["drift"])))
CASES.append(("waits/accuracy -n 4, rank 2's clock -0.3 s drifting -1%, resync 300 ms",
              lambda: test_waits(4, {"TARDY_TEST_CLOCK_SHIFT": "2:-0.3:-0.01",
                                     "TARDY_WAITS_RESYNC_MS": "300"}, ["drift"])))
CASES.append(("waits/TARDY_WAITS=0", lambda: test_waits_off({"TARDY_WAITS": "0"})))
CASES.append(("waits/off by default", lambda: test_waits_off({})))
CASES.append(("waits/MPI_THREAD_MULTIPLE -n 2", test_waits_threads))
for _n in (1, 2, 4):
    CASES.append(("waits/semantics unchanged -n %d" % _n, lambda n=_n: test_waits_semantics(n)))
for _n in (2, 4):
    CASES.append(("waits/Fortran use mpi -n %d" % _n, lambda n=_n: test_waits_fortran(n)))
for _n in (2, 4):
    CASES.append(("mpit/performance variable per call site (TARDY_PVAR_COUNTERS) -n %d" % _n,
                  lambda n=_n: test_pvar_counters(n)))
CASES.append(("counters/SDE events and a performance variable share the columns -n 2",
              test_pvar_counters_with_sde))
for _n in (1, 2, 4):
    CASES.append(("mpit/events per call path (test library) -n %d" % _n,
                  lambda n=_n: test_mpit_events(n)))
CASES.append(("mpit/events per call path (test library) singleton", lambda: test_mpit_events(0)))
for _n in (2, 4):
    CASES.append(("waits/neighbourhood collectives -n %d" % _n,
                  lambda n=_n: test_waits_neighbor(n)))
CASES.append(("waits/neighbourhood collectives -n 4, rank 1's clock -0.4 s",
              lambda: test_waits_neighbor(4, {"TARDY_TEST_CLOCK_SHIFT": "1:-0.4"})))
for _n in (2, 4):
    CASES.append(("waits/Fortran use mpi_f08 -n %d" % _n,
                  lambda n=_n: test_waits_fortran(n, "waits_fortran_f08")))
for _n in (1, 2, 4, 0):
    CASES.append(("hook/tardy.on_init sets a control variable %s" % (
        "-n %d" % _n if _n else "singleton"), lambda n=_n: test_hook_set(n)))
CASES.append(("hook/a number as the value -n 2", lambda: test_hook_set(2, "number", 4, "4")))
CASES.append(("hook/nil: nothing set", test_hook_none))
CASES.append(("hook/after TARDY_CVARS", test_hook_after_option))
CASES.append(("hook/earlier runs from the store", test_hook_store))
CASES.append(("hook/docs example", test_hook_docs_example))
for _mode, _needle in (("runtime_error", None), ("endless", None),
                       ("wrong_type", "init_hooks.lua:%d: tardy.on_init hook returned a string"
                        % site_line(HOOKS, "hook")),
                       ("bad_value_type", "returned %s = a table" % ALG),
                       ("unknown", "no control variable NO_SUCH_CONTROL_VARIABLE"),
                       ("bad_value", "'frobnicate' is not a value of " + ALG)):
    CASES.append(("hook/broken: %s" % _mode, lambda m=_mode, n=_needle: test_hook_broken(m, n)))
CASES.append(("hook/TARDY_MPIT=0: not run", lambda: test_hook_broken(
    "set", "tardy.on_init is not run: MPI_T is not in use", {"TARDY_MPIT": "0"})))

# Batched exchanges of blocking collectives (tool/waits/batch.c).
BATCH_SRC = "tests/mpi/waits_batch.c"
BATCH_SCENARIOS = {
    "fill": ("wait_at_nxn", "MPI_Allreduce", "op_fill", "sync_fill", "op_fill"),
    "open": ("late_broadcast", "MPI_Bcast", "op_open", "sync_open", "op_open"),
    "freed": ("early_reduce", "MPI_Reduce", "op_freed", "sync_freed", "op_freed"),
}


def test_waits_batch(ranks, env=None):
    """Waits at the call filling a batch, in a batch still open at finalize, in one closed by
    MPI_Comm_free, and every wait of a run of calls: each within max(5%, 100 us) of the
    truth, with its late rank and cause (check_wait); the run's sum within 5%."""
    @with_run([binary("waits_batch")], ranks, dict(env or {}, TARDY_WAITS="1"))
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        truth = wait_truth(run.out)
        expect(set(truth) == set(BATCH_SCENARIOS), "scenarios printed: %s" % sorted(truth))
        for scenario in BATCH_SCENARIOS:
            check_wait(run.profile, scenario, truth[scenario], BATCH_SCENARIOS, BATCH_SRC)
        want = float(run.out.split("sum run")[1].split()[0])
        rows = wait_rows(run.profile, "wait_at_nxn", "MPI_Allreduce", "op_run", BATCH_SRC)
        got = rows[0]["time"]["sum"] if rows else 0
        count = rows[0]["count"]["sum"] if rows else 0
        expect(count >= 40 * (ranks - 1) and abs(got - want) <= 0.05 * want + count * 100e-6,
               "run of calls: tardy %.6f s in %d waits, truth %.6f s" % (got, count, want))


for _n in (2, 4):
    CASES.append(("waits/batched collectives -n %d" % _n, lambda n=_n: test_waits_batch(n)))

# Piggybacks taken after the receive (tool/waits/p2p.c's queue).
DEFER_SRC = "tests/mpi/waits_defer.c"
DEFER_SCENARIOS = {
    "mix": ("wait_at_nxn", "MPI_Waitall", "op_mix", "mix_send", "mix_iar"),
    "freed": ("late_sender", "MPI_Recv", "op_freed", "sync_freed", "freed_send"),
    "many": ("late_sender", "MPI_Waitall", "op_many", "sync_many", "many_send"),
    "swap": ("late_sender", "MPI_Wait", "op_swap", "swap_send1", "swap_send2"),
    "swap_any": ("late_sender", "MPI_Wait", "op_swap_any", "swap_send1", "swap_send2"),
    "swap_recv": ("late_sender", "MPI_Recv", "op_swap_recv", "swap_send1", "swap_send2"),
    "swap_persistent": ("late_sender", "MPI_Wait", "op_swap_persistent", "swap_send1",
                        "swap_send2"),
    "swap_mprobe": ("late_sender", "MPI_Wait", "op_swap_mprobe", "swap_send1", "swap_send2"),
}


def test_waits_defer(ranks, env=None):
    """A Waitall completing a receive and an Iallreduce, both late; a receive on a
    communicator freed right after it; a Waitall of 40 receives (more than the queue holds)
    counts one wait; receives of one source and tag completed out of the order they matched
    in (and one completed after 300 later ones, past tardy's bound on held receives: one
    warning). Each as check_wait. The first Waitall counts one wait, its largest, also when
    the Iallreduce's exchange finishes after the call (its parts form a group)."""
    @with_run([binary("waits_defer")], ranks, dict(env or {}, TARDY_WAITS="1"))
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        truth = wait_truth(run.out)
        expect(set(truth) == set(DEFER_SCENARIOS), "scenarios printed: %s" % sorted(truth))
        for scenario in DEFER_SCENARIOS:
            check_wait(run.profile, scenario, truth[scenario], DEFER_SCENARIOS, DEFER_SRC)
        many = wait_rows(run.profile, "late_sender", "MPI_Waitall", "op_many", DEFER_SRC)
        expect(many[0]["count"]["sum"] == 1, "many: %d waits" % many[0]["count"]["sum"])
        expect(run.out.count("late completion ok") == 1, "late completion: data out of order")
        held = [l for l in run.err.splitlines() if "stays pending" in l]
        expect(len(held) == 1, "late completion: warnings %s" % held)
        mix = wait_rows(run.profile, "wait_at_nxn", "MPI_Waitall", "op_mix", DEFER_SRC)
        waiting = len([w for w in truth["mix"][0] if w > 0.02])
        expect(mix and mix[0]["count"]["sum"] == waiting and
               not wait_rows(run.profile, "late_sender", "MPI_Waitall", "op_mix", DEFER_SRC),
               "mix: %s waits at nxn, late_sender rows %s" %
               (mix and mix[0]["count"]["sum"],
                wait_rows(run.profile, "late_sender", "MPI_Waitall", "op_mix", DEFER_SRC)))


for _n in (2, 4):
    CASES.append(("waits/piggybacks taken later -n %d" % _n, lambda n=_n: test_waits_defer(n)))


def test_waits_comms(ranks):
    """1000 communicators alive at once with wait states on: the program runs as without tardy
    (tardy's shadows leave it most of MPICH's 2048 communicator ids, and a failure to make one
    is not fatal), with one warning per rank."""
    @with_run([binary("waits_comms")], ranks, {"TARDY_WAITS": "1"})
    def _(run):
        expect(run.rc == 0 and run.out.strip() == "ok" and run.profile,
               "exit %d: %s" % (run.rc, run.err[-800:]))
        warned = [l for l in run.err.splitlines() if "too many communicators" in l]
        expect(len(warned) == ranks, "warnings: %s" % warned)


for _n in (1, 2):
    CASES.append(("waits/1000 communicators -n %d" % _n, lambda n=_n: test_waits_comms(n)))

# Balanced runs (tests/mpi/waits_balanced.c): every rank does the same work, so tardy must report
# only the waiting that really happened (the program's own truth: 0-2% of the MPI time on a
# quiet machine, 10-40% at load 5-10, the scheduler). Requirement: tardy minus truth within 1%
# of the MPI time, no allowance besides. Measured (tardy - truth over the MPI time, 1 MiB; at 2
# ranks also 4 MiB, whose longer calls give more room on a quiet machine): load 5-10, 60 runs
# at 2 and 4 ranks: within 0.05% (0.74 ms once: a rank preempted between the program's clock
# reading and tardy's); quiet, 33 runs: within 0.17% at 2 ranks with 1 MiB (25 ms of MPI time,
# about +1 us per wait where the two clock readings differ), 0.02% with 4 MiB, 0.013% at 4.
BAL_SRC = "tests/mpi/waits_balanced.c"
BAL_MODES = {  # the waiting row, and the MPI calls of the measured loop
    "allreduce": ("wait_at_nxn", "MPI_Allreduce", ["b_ar"],
                  [("MPI_Allreduce", "b_ar")]),
    "halo": ("late_sender", "MPI_Waitall", ["h_wait"],
             [("MPI_Irecv", "h_irecv"), ("MPI_Isend", "h_isend"), ("MPI_Waitall", "h_wait")]),
    "pingpong": ("late_sender", "MPI_Recv", ["p_recv", "p_recv2"],
                 [("MPI_Send", "p_send"), ("MPI_Recv", "p_recv"), ("MPI_Recv", "p_recv2"),
                  ("MPI_Send", "p_send2")]),
}


def test_waits_balanced(mode, ranks, env=None, n=40, doubles=131072, work=0.002):
    """n rounds of equal work (busy, seconds) and an operation on `doubles` doubles: tardy's
    waiting at the operation differs from the true waiting by at most 1% of the MPI time."""
    @with_run([binary("waits_balanced"), mode, str(n), str(doubles), str(work)], ranks,
              dict(env or {}, TARDY_WAITS="1"))
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-800:]))
        out = run.out.split()
        expect(out[:2] == ["balanced", mode], "output: %s" % run.out)
        truth = float(out[2])
        pattern, fn, markers, calls = BAL_MODES[mode]
        waited = sum(w["time"]["sum"] for m in markers
                     for w in wait_rows(run.profile, pattern, fn, m, BAL_SRC) +
                     wait_rows(run.profile, pattern + "_wrong_order", fn, m, BAL_SRC))
        mpi = sum(r["time"]["sum"] for f, m in calls for r in mpi_rows(run.profile, f, BAL_SRC, m))
        expect(mpi > 0, "no MPI time at the measured calls")
        expect(abs(waited - truth) <= 0.01 * mpi,
               "balanced %s: tardy %.6f s waiting, truth %.6f s: %+.3f%% of the MPI time "
               "%.6f s (clock offsets %s)" % (mode, waited, truth, 100 * (waited - truth) / mpi,
                                             mpi, run.profile["ranks"]["clock_offset"]))


for _n in (2, 4):
    for _mode in sorted(BAL_MODES):
        CASES.append(("waits/balanced %s -n %d" % (_mode, _n),
                      lambda m=_mode, n=_n: test_waits_balanced(
                          m, n, n=40 if n == 2 else 20, doubles=524288 if n == 2 else 131072)))
CASES.append(("waits/balanced halo -n 4, rank 1's clock +0.3 s",
              lambda: test_waits_balanced("halo", 4, {"TARDY_TEST_CLOCK_SHIFT": "1:0.3"}, 20)))
# Resynchronisation at collectives on any communicator of every world rank: the drift cases
# with the program on a duplicate of MPI_COMM_WORLD only (fails when only MPI_COMM_WORLD's
# collectives resynchronise: no resync at all), and alternating between the two.
for _n, _shift in ((2, "1:0.2:0.01"), (4, "2:-0.3:-0.01")):
    for _mode in ("drift_dup", "drift_mixed"):
        CASES.append(("waits/accuracy -n %d, clock %s drifting, resync 300 ms, %s" %
                      (_n, _shift, _mode),
                      lambda n=_n, s=_shift, m=_mode: test_waits(
                          n, {"TARDY_TEST_CLOCK_SHIFT": s, "TARDY_WAITS_RESYNC_MS": "300"}, [m])))



def test_waits_resync_threads(ranks):
    """Collectives in four threads at once, each on its own communicator of every world rank,
    resynchronising every 20 ms: the ranks agree at each collective whether to measure (a rank
    whose other thread is measuring says so), so nothing hangs and every result is right."""
    @with_run([binary("waits_resync_threads")], ranks,
              {"TARDY_WAITS": "1", "TARDY_WAITS_RESYNC_MS": "20"})
    def _(run):
        expect(run.rc == 0 and run.out.strip() == "ok" and run.profile,
               "exit %d: %s %s" % (run.rc, run.out, run.err[-800:]))
        resyncs = run.profile["ranks"].get("clock_resyncs", {}).get("min", 0)
        expect(resyncs >= 2, "clocks resynchronised %s times" % resyncs)


for _n in (2, 4):
    CASES.append(("waits/resync in threads on duplicates -n %d" % _n,
                  lambda n=_n: test_waits_resync_threads(n)))


# One-sided wait states (tool/waits/rma.c, tool/waits/pscw.c).
RMA_SRC = "tests/mpi/waits_rma.c"
RMA_SCENARIOS = {
    "create": ("wait_at_win_create", "MPI_Win_create", "op_create", "sync_create", "op_create"),
    "fence": ("wait_at_fence", "MPI_Win_fence", "op_fence", "put1", "op_fence"),
    "early_wait": ("early_wait", "MPI_Win_wait", "op_wait", "put3", "op_complete2"),
    "free": ("wait_at_win_free", "MPI_Win_free", "op_free", "sync_free", "op_free"),
    "fence_sub": ("wait_at_fence", "MPI_Win_fence", "op_fence_sub", "put4", "op_fence_sub"),
}
# Late Post: in the call the library blocked in (the program says which)
RMA_LATE_POST = {"MPI_Win_start": "op_start", "MPI_Win_complete": "op_complete"}


def test_waits_rma(ranks, env=None):
    """Wait at Window Create, Wait at Fence (a window of MPI_Win_create on MPI_COMM_WORLD,
    one of MPI_Win_allocate on a sub-communicator), Late Post, Early Wait, Wait at Window
    Free: each as check_wait; the windows' data as without tardy."""
    @with_run([binary("waits_rma")], ranks, dict(env or {}, TARDY_WAITS="1"))
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-1500:]))
        expect("data ok" in run.out, "wrong data under tardy: %s" % run.out[-800:])
        blocked = run.out.split("blocked ")[1].split()[0]
        scenarios = dict(RMA_SCENARIOS, late_post=(
            "late_post", blocked, RMA_LATE_POST[blocked], "sync_lp", "op_post"))
        truth = wait_truth(run.out)
        expect(set(truth) == set(scenarios), "scenarios printed: %s" % sorted(truth))
        for scenario in sorted(scenarios):
            check_wait(run.profile, scenario, truth[scenario], scenarios, RMA_SRC)


for _n in (2, 4):
    CASES.append(("waits/one-sided -n %d" % _n, lambda n=_n: test_waits_rma(n)))
CASES.append(("waits/one-sided -n 4, rank 2's clock +0.5 s",
              lambda: test_waits_rma(4, {"TARDY_TEST_CLOCK_SHIFT": "2:0.5"})))
CASES.append(("waits/one-sided -n 2, rank 1's clock -0.3 s",
              lambda: test_waits_rma(2, {"TARDY_TEST_CLOCK_SHIFT": "1:-0.3"})))


def main():
    only = sys.argv[1:]
    for name, fn in CASES:
        if only and not any(o in name for o in only):
            continue
        try:
            fn()
            report(name, True)
        except Skip as s:
            report(name, None, str(s))
        except AssertionError as ex:
            report(name, False, str(ex))
        except Exception as ex:  # a broken test is a failed test
            report(name, False, "%s: %s" % (type(ex).__name__, ex))
    line = "%d passed, %d failed" % (results["passed"], results["failed"])
    if results["skipped"]:
        line += ", %d skipped" % results["skipped"]
    print(line)
    return 1 if results["failed"] else 0


import abort_cases  # noqa: E402  jobs that die (issue 17), tests/abort_cases.py
CASES.extend(abort_cases.cases(sys.modules[__name__]))

if __name__ == "__main__":
    sys.exit(main())
