#!/usr/bin/env python3
"""MPICH's own test suite (test/mpi) run three ways: without a tool, with tardy preloaded, and
with tardy's wait states on (TARDY_WAITS=1). One test is one MPICH test: it passes when its
outcome (pass, fail or timeout, judged as MPICH's runtests judges it: exit 0 and " No Errors"
the only output on stdout) is the same all three ways and every tardy run wrote valid JSON.
Prints PASS/FAIL/SKIP per test and ends with `N passed, N failed[, N skipped]`.

    tests/mpich/suite.py TESTDIR [--only PATTERN...] [--ways none,tardy,waits] [--times FILE]

TESTDIR: a built test/mpi tree. The tests are those of tests/mpich/subset (testlist lines
prefixed by their directory); those of tests/mpich/flaky are skipped, with their reason."""
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
B = os.environ.get("B", "build")
LIB = os.path.abspath(os.path.join(B, "lib", "libtardy.so"))
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.mpich")
TIMEOUT = 180     # seconds per launch unless the testlist gives a timeLimit (as runtests)
WAYS = {"none": None, "tardy": {}, "waits": {"TARDY_WAITS": "1"}}


def entries(path):
    """(name, directory, program, ranks, args, env, time limit) of each line of a list."""
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        d, prog, np = line[0], line[1], int(line[2])
        args, env, limit = [], {}, TIMEOUT
        for opt in line[3:]:
            key, _, val = opt.partition("=")
            if key == "arg":
                args.append(val)
            elif key == "env":
                k, _, v = val.partition("=")
                env[k] = v
            elif key == "timeLimit":
                limit = int(val)
        name = " ".join([d + "/" + prog, str(np)] + line[3:])
        yield name, d, prog, np, args, env, limit


def flaky_names(path):
    """The tests named in the flaky list, with their reasons."""
    out = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            name, _, why = line.partition("--")
            out[" ".join(name.split())] = why.strip()
    return out


def outcome(rc, stdout):
    """MPICH's runtests verdict: exit 0 and " No Errors" the only output."""
    if rc == 124:
        return "timeout"
    lines = [l.strip() for l in stdout.splitlines() if l.strip()]
    ok = rc == 0 and any(l in ("No Errors", "No errors") for l in lines) and \
        all(l in ("No Errors", "No errors", "Test Passed") for l in lines)
    return "pass" if ok else "fail"


def kill_strays(cwd, prog):
    """The ranks of a launch that timed out and were left running: a launcher killed (after
    timeout's grace) before it passed the signal on orphans them, and they would spin for
    the rest of the run. Found by their directory and program name."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv0 = open("/proc/%s/cmdline" % pid).read().split("\0")[0]
            if argv0 == "./" + prog and os.readlink("/proc/%s/cwd" % pid) == cwd:
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            continue


def run_way(testdir, d, prog, np, args, env, limit, way):
    """One launch: (outcome, seconds, why the tardy part is wrong or "", stderr)."""
    prof = tempfile.mkdtemp(prefix="tardy-mpich-")
    e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
    e.update(env)
    if WAYS[way] is not None:
        e.update({"LD_PRELOAD": LIB, "TARDY_PROFILE": prof}, **WAYS[way])
    cmd = ["timeout", "-k", "5", str(limit), MPIEXEC, "-n", str(np), "./" + prog] + args
    t0 = time.time()
    p = subprocess.run(cmd, cwd=os.path.join(testdir, d), env=e, capture_output=True,
                       text=True, errors="replace")
    secs = time.time() - t0
    if p.returncode in (124, 137):
        kill_strays(os.path.realpath(os.path.join(testdir, d)), prog)
    res = outcome(p.returncode, p.stdout)
    bad = ""
    if WAYS[way] is not None:
        files = glob.glob(os.path.join(prof, "tardy-*.json"))
        for f in files:
            try:
                json.load(open(f))
            except ValueError as ex:
                bad = "invalid JSON in %s: %s" % (os.path.basename(f), ex)
        # a program of the sessions model alone is not measured, and told so
        if res == "pass" and not files and "tardy: MPI_Session_init" not in p.stderr:
            bad = "no profile"
    shutil.rmtree(prof, ignore_errors=True)
    return res, secs, bad, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("testdir")
    ap.add_argument("--subset", default=os.path.join(HERE, "subset"))
    ap.add_argument("--flaky", default=os.path.join(HERE, "flaky"))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--ways", default="none,tardy,waits")
    ap.add_argument("--times", help="append each launch's seconds to this file")
    o = ap.parse_args()
    ways = o.ways.split(",")
    flaky = flaky_names(o.flaky)
    n = {"passed": 0, "failed": 0, "skipped": 0}
    wall = dict.fromkeys(ways, 0.0)
    times = open(o.times, "a") if o.times else None
    for name, d, prog, np, args, env, limit in entries(o.subset):
        if o.only and not any(p in name for p in o.only):
            continue
        if name in flaky:
            n["skipped"] += 1
            print("SKIP %s (flaky: %s)" % (name, flaky[name]))
            continue
        res = {}
        for way in ways:
            res[way] = run_way(o.testdir, d, prog, np, args, env, limit, way)
            wall[way] += res[way][1]
            if times:
                times.write("%s\t%s\t%s\t%.2f\n" % (way, name, res[way][0], res[way][1]))
                times.flush()
        outs = {w: r[0] for w, r in res.items()}
        bad = [w + ": " + r[2] for w, r in res.items() if r[2]]
        if len(set(outs.values())) == 1 and not bad:
            n["passed"] += 1
            print("PASS %s (%s; %s)" % (name, outs[ways[0]],
                                       ", ".join("%.1f s" % res[w][1] for w in ways)))
        else:
            n["failed"] += 1
            print("FAIL %s: %s %s" % (name, " ".join("%s=%s" % kv for kv in outs.items()),
                                      "; ".join(bad)))
            for w, r in res.items():
                if r[0] != outs[ways[0]] or r[2]:
                    print("  %s output: %s" % (w, r[3][-600:].replace("\n", "\n    ")))
        sys.stdout.flush()
    print("wall time: " + ", ".join("%s %.0f s" % kv for kv in wall.items()))
    tail = ", %d skipped" % n["skipped"] if n["skipped"] else ""
    print("%d passed, %d failed%s" % (n["passed"], n["failed"], tail))
    return 1 if n["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
