#!/usr/bin/env python3
"""Run tardy's tests: unit test binaries, MPI programs under tardy (checked on their JSON
profiles), and the command line. Prints PASS/FAIL/SKIP per test and ends with the line
`N passed, N failed[, N skipped]`. Exit status 1 if anything failed.

    tests/run.py [--list] [PATTERN...]

runs (with --list: prints the names of, without running) the cases whose name contains one of
the PATTERNs (all cases without any).

This file is the harness (Run, with_run, expect, Skip, binary, counting, the closing line) and
the helpers several rooms share (load_profile, call sites, check_p2p, check_calls, mpich_like). The cases are
in tests/cases/ROOM.py, one file per room, named after their prefix (mpi/... in mpi.py); each
file makes `room = Room("ROOM")` and adds its cases with room.case(name, fn), in the order they
run. ORDER below interleaves the rooms' parts (room.part("PART")) into the order of the whole
suite."""
import glob
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

if __name__ == "__main__":  # the case files import the harness as `run`: this very module
    sys.modules["run"] = sys.modules[__name__]
sys.dont_write_bytecode = True  # no __pycache__ of the case files in the source tree

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
    """Raised by a case that cannot run here (reported as SKIP with the reason)."""


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
        self.profile = load_profile(files[0]) if len(files) == 1 else None
        self.nprofiles = len(files)
        s = os.path.join(self.dir, "summary.txt")
        self.summary = open(s).read() if os.path.exists(s) else ""

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


# ---- reading profiles --------------------------------------------------------------------------

STAT = ("sum", "min", "min_rank", "max", "max_rank", "ranks")


def hist_bin(seconds):
    """tool/base's histogram bin: 0 below 1 ns, b > 0 [2^(b-1), 2^b) ns, 39 open."""
    ns = seconds * 1e9
    return 0 if not ns >= 1 else min(int(ns).bit_length(), 39)


def ctr_rank_bin(v):
    """The bin of a per-rank counter total: 0 below 1, b > 0 [4^(b-1), 4^b), 23 open."""
    b = 0 if not v >= 1 else 1
    while b and v >= 4 ** b and b < 23:
        b += 1
    return b


def expand_stat(s, ranks):
    """[sum, min, min_rank, max, max_rank, ranks] as a dict, with the mean over all ranks."""
    assert isinstance(s, list) and len(s) == 6, "a statistic: %r" % (s,)
    d = dict(zip(STAT, s))
    d["mean"] = d["sum"] / ranks
    return d


def expand_row(row, ranks):
    """The row's statistics as dicts and the histograms the file leaves out where they say
    no more than the row (docs/profile-schema.md) filled in."""
    for key in ("count", "time", "sent", "recv", "late", "cost", "value"):
        if key in row:
            row[key] = expand_stat(row[key], ranks)
    for key, s in row.get("memory", {}).items():
        row["memory"][key] = expand_stat(s, ranks)
    for name, c in row.get("counters", {}).items():
        v = expand_stat(c["value"], ranks)
        v["ranks_histogram"] = c.get("ranks_histogram") or \
            ([[ctr_rank_bin(v["max"]), v["ranks"]]] if v["ranks"] else [])
        row["counters"][name] = v
    if "call_max" in row:  # mpi, intervals and waits
        n, t = row["count"], row["time"]
        if "histogram" not in row:
            row["histogram"] = [[hist_bin(row["call_max"]), n["sum"], t["sum"]]] if n["sum"] else []
        if "ranks_histogram" not in row:
            row["ranks_histogram"] = [[hist_bin(t["max"]), t["ranks"], t["sum"]]] if t["ranks"] else []


def load_profile(path):
    """A JSON profile of version 2 as the cases read it: every statistic a dict {"sum",
    "mean", "min", "min_rank", "max", "max_rank", "ranks"}, callpaths[id]["frames"] a list of
    {"function", "file", "line"}, and every row with its histograms and bytes. Asserts the
    version."""
    prof = json.load(open(path))
    assert prof.get("version") == 2, "%s: version %r" % (path, prof.get("version"))
    ranks = prof["run"]["ranks"]
    for row in prof["mpi"]:  # no bytes on any rank: left out (docs/profile-schema.md)
        n = row["count"]
        for key in ("sent", "recv"):
            row.setdefault(key, [0, 0, min(n[2], n[4]) if n[5] else -1, 0,
                                 min(n[2], n[4]) if n[5] else -1, n[5]])
    for table in ("mpi", "intervals", "waits", "wait_causes"):
        for row in prof.get(table, []):
            expand_row(row, ranks)
    for table in ("pvars", "events"):
        for row in prof.get("mpi_t", {}).get(table, []):
            expand_row(row, ranks)
    for key, s in prof["ranks"].items():
        if key != "compute_histogram":
            prof["ranks"][key] = expand_stat(s, ranks)
    frames = [{"function": f, "file": prof["files"][i], "line": line}
              for f, i, line in prof["frames"]]
    prof["callpaths"] = [{"id": k, "frames": [frames[i] for i in ids]}
                         for k, ids in enumerate(prof["callpaths"])]
    return prof


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


def mpich_like():
    return "openmpi" not in MPIEXEC


# ---- the rooms' cases -------------------------------------------------------------------------

CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
# The order the parts of the rooms run in (the cases of a part in the order its file adds
# them): the order in which the suite grew. A room's first part is named after the room, its
# others ROOM:PART.
ORDER = ("unit", "layout", "mpi", "config", "cli", "counters", "mpit", "qmpi", "memory", "lua",
         "waits", "mpit:pvars", "counters:pvars", "mpit:events", "waits:neighbourhood", "hook",
         "waits:batched", "predict", "partial", "diff", "html", "waits:causes")
PARTS = {}  # part -> [(case name, function)]


class Room:
    """The cases of one room (tests/cases/ROOM.py)."""

    def __init__(self, name):
        self.name = name
        self.part("")

    def part(self, label):
        """Add the following cases to the part ROOM:label (the room's first part: "")."""
        self.current = self.name + (":" + label if label else "")
        if self.current in PARTS:
            raise SystemExit("tests/run.py: part %s made twice" % self.current)
        PARTS[self.current] = []

    def case(self, name, fn):
        PARTS[self.current].append((name, fn))


def load_cases():
    """Every case, in ORDER."""
    sys.path.insert(0, os.path.dirname(CASES_DIR))
    for path in sorted(glob.glob(os.path.join(CASES_DIR, "*.py"))):
        if not path.endswith("__init__.py"):
            importlib.import_module("cases." + os.path.basename(path)[:-3])
    unknown, missing = set(PARTS) - set(ORDER), set(ORDER) - set(PARTS)
    if unknown or missing:
        raise SystemExit("tests/run.py: parts not in ORDER: %s; in ORDER, not made: %s" % (
            sorted(unknown), sorted(missing)))
    return [c for part in ORDER for c in PARTS[part]]


def main():
    args = sys.argv[1:]
    listing = "--list" in args
    only = [a for a in args if a != "--list"]
    for name, fn in load_cases():
        if only and not any(o in name for o in only):
            continue
        if listing:
            print(name)
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
    if listing:
        return 0
    line = "%d passed, %d failed" % (results["passed"], results["failed"])
    if results["skipped"]:
        line += ", %d skipped" % results["skipped"]
    print(line)
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
