"""Jobs that die: partial profiles on MPI_Abort, crashes, SIGTERM and SIGKILL with snapshots,
`tardy merge`, and a fuzz of broken partial files. cases(ns) makes them from run.py's names
(binary, expect, TARDY, LIB, MPIEXEC, TIMEOUT, Skip, mpich_like)."""
import glob
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time

import run
from run import Room

room = Room("partial")
SRC = "tests/mpi/dies.c"
F_SRC = "tests/mpi/dies_f.F90"


def cases(ns):
    expect, binary, TARDY, LIB = ns.expect, ns.binary, ns.TARDY, ns.LIB

    def line_of(marker, src=SRC):
        for i, text in enumerate(open(src), 1):
            if marker in text:
                return i
        raise AssertionError("no marker %r in %s" % (marker, src))

    def env_for(d, tool, extra=None):
        e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
        e.update({"TARDY_PROFILE": d, "TARDY_SUMMARY": os.path.join(d, "summary.txt")})
        if tool:
            e["LD_PRELOAD"] = LIB
        e.update(extra or {})
        return e

    def launch(argv, ranks, tool, extra=None, term_after=None, sig=signal.SIGTERM, prog="dies"):
        """Run dies ARGV on ranks (0: no launcher) under timeout; with term_after, send sig
        to the launcher (or the process) that many seconds after it printed "looping".
        Returns (dir, returncode, stdout, stderr)."""
        d = tempfile.mkdtemp(prefix="tardy-dies-")
        cmd = [binary(prog)] + argv
        if ranks:
            cmd = [ns.MPIEXEC, "-n", str(ranks)] + cmd
        # SIGINT as a job started from a terminal has it: a shell ignores it for its
        # background jobs, and an ignored signal gets no handler of tardy's
        p = subprocess.Popen(cmd, env=env_for(d, tool, extra), cwd=d, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            if term_after is not None:
                first = p.stdout.readline()
                expect("looping" in first, "no 'looping' line: %r" % first)
                time.sleep(term_after)
                p.send_signal(sig)
            out, err = p.communicate(timeout=ns.TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise AssertionError("%s did not end in %d s" % (" ".join(cmd), ns.TIMEOUT))
        wait_for_writers(d)
        return d, p.returncode, out, err

    def wait_for_writers(d, limit=30):
        """A rank's partial profile is written by a copy of it in a session of its own, so
        that a launcher killing the rank meanwhile (Open MPI's mpirun and Hydra do, once
        another rank has ended) does not end the writing too: the copy may outlive the
        launcher by up to 25 s. Wait for every process still working in d."""
        def left():
            pids = []
            for cwd in glob.glob("/proc/[0-9]*/cwd"):
                try:
                    if os.readlink(cwd) == d:
                        pids.append(cwd.split("/")[2])
                except OSError:
                    pass
            return pids
        end = time.time() + limit
        running = left()
        while running and time.time() < end:
            time.sleep(0.05)
            running = left()
        expect(not running, "processes %s still running in %s after %d s" % (running, d, limit))

    def partials(d):
        files = sorted(glob.glob(os.path.join(d, "*.partial.json")))
        profiles = []
        for f in files:
            try:
                profiles.append(run.load_profile(f))
            except ValueError as ex:
                raise AssertionError("%s is not valid JSON: %s" % (f, ex))
        return files, profiles

    def merge(args):
        p = subprocess.run(["timeout", "60", TARDY, "merge"] + args, capture_output=True,
                           text=True)
        return p.returncode, p.stdout, p.stderr

    def check_merge(d, ranks, present, reason_of=None):
        rc, out, err = merge([d, "-o", os.path.join(d, "merged.json")])
        expect(rc == 0, "tardy merge %s: exit %d: %s" % (d, rc, err[-800:]))
        head = "PARTIAL profile: %d of %d ranks contributed" % (len(present), ranks)
        expect(head in out, "merge summary lacks %r:\n%s" % (head, out[:1500]))
        missing = [r for r in range(ranks) if r not in present]
        if missing:
            expect("missing   ranks" in out, "merge names no missing ranks:\n%s" % out[:1500])
        merged = run.load_profile(os.path.join(d, "merged.json"))
        got = sorted(s["rank"] for s in merged["partial"]["stopped"])
        expect(got == sorted(present), "merged ranks %s, expected %s" % (got, present))
        for rank, reason in (reason_of or {}).items():
            s = [s for s in merged["partial"]["stopped"] if s["rank"] == rank][0]
            expect(s["reason"] == reason, "rank %d stopped by %s, not %s" % (rank, s, reason))
        calls = sum(r["count"]["sum"] for r in merged["mpi"]
                    if r["function"] == "MPI_Allreduce")
        expect(calls >= 1000 * len(present), "merged profile has %s MPI_Allreduce calls" % calls)
        return out

    def survivors(ranks, snapshots):
        """The ranks with a partial profile when rank 1 aborts or crashes: Hydra kills the
        others without a signal tardy can catch (only snapshots are left of them); Open MPI's
        mpirun sends them SIGTERM first, and they write."""
        return list(range(ranks)) if snapshots or not ns.mpich_like() else [1]

    def rank_pids(launcher, prog):
        """The processes of prog among the launcher's descendants (Hydra: under its proxy;
        Open MPI: its children)."""
        pids, todo = [], [launcher]
        while todo:
            pid = todo.pop()
            for task in glob.glob("/proc/%d/task/*/children" % pid):
                for child in open(task).read().split():
                    todo.append(int(child))
                    try:
                        cmd = open("/proc/%s/cmdline" % child).read().split("\0")[0]
                    except OSError:
                        continue
                    if cmd == prog:
                        pids.append(int(child))
        return pids

    def baseline(argv, ranks, extra=None, term_after=None, sig=signal.SIGTERM, prog="dies"):
        d, rc, out, err = launch(argv, ranks, False, extra, term_after, sig, prog)
        shutil.rmtree(d, ignore_errors=True)
        return rc

    def test_abort(ranks, snapshots):
        extra = {"TARDY_SNAPSHOT": "1"} if snapshots else {}
        argv = ["abort", "3"] + (["2.5"] if snapshots else [])
        d, rc, out, err = launch(argv, ranks, True, extra)
        try:
            expect(rc == baseline(argv, ranks) == 3, "exit %d under tardy: %s" % (rc, err[-800:]))
            files, profs = partials(d)
            mine = [p for p in profs if p["partial"]["stopped"][0]["reason"] == "abort"]
            expect(len(mine) == 1, "abort profiles: %d of %d files; in %s: %s; stderr: %s"
                   % (len(mine), len(files), d, os.listdir(d), err[-1500:]))
            s = mine[0]["partial"]["stopped"][0]
            expect(s["rank"] == 1 and s["code"] == 3, "stop %s" % s)
            where = "dies.c:%d" % line_of("abort here")
            expect(where in s["where"], "abort at %r, not %s" % (s["where"], where))
            # Hydra may end before it has passed on an aborting rank's output (MPICH's own
            # "Abort(3) on node 1" is then lost too): the line is checked when there is output.
            expect("MPI_Abort(code 3) called at main %s" % SRC in err or not err.strip(),
                   "no stderr line for the abort: %s" % err[-800:])
            check_merge(d, ranks, survivors(ranks, snapshots), {1: "abort"})
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_abort_fortran(prog):
        """MPI_Abort from Fortran (use mpi and use mpi_f08, whose binding calls PMPI_Abort
        directly): the aborting rank's partial profile names the Fortran line."""
        d, rc, out, err = launch(["3"], 2, True, prog=prog)
        try:
            base = baseline(["3"], 2, prog=prog)
            expect(rc == base == 3, "exit %d under tardy, %d without: %s" % (rc, base, err[-800:]))
            files, profs = partials(d)
            mine = [p for p in profs if p["partial"]["stopped"][0]["reason"] == "abort"]
            expect(len(mine) == 1, "abort profiles: %d of %d files; stderr: %s"
                   % (len(mine), len(files), err[-1500:]))
            s = mine[0]["partial"]["stopped"][0]
            expect(s["rank"] == 1 and s["code"] == 3, "stop %s" % s)
            where = "dies_f.F90:%d" % line_of("abort here", F_SRC)
            expect(where in s["where"], "abort at %r, not %s" % (s["where"], where))
            check_merge(d, 2, survivors(2, False), {1: "abort"})
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_crash(ranks, snapshots):
        extra = {"TARDY_SNAPSHOT": "1"} if snapshots else {}
        argv = ["crash", "0"] + (["2.5"] if snapshots else [])
        d, rc, out, err = launch(argv, ranks, True, extra)
        try:
            base = baseline(argv, ranks)
            expect(rc == base, "exit %d under tardy, %d without: %s" % (rc, base, err[-800:]))
            files, profs = partials(d)
            mine = [p for p in profs if p["partial"]["stopped"][0].get("signal") == "SIGSEGV"]
            expect(len(mine) == 1, "crash profiles: %d of %d; exit %d; in %s: %s; stderr: %s"
                   % (len(mine), len(files), rc, d, os.listdir(d), err[-1500:]))
            s = mine[0]["partial"]["stopped"][0]
            expect(s["signal"] == "SIGSEGV" and s["code"] == 11 and s["rank"] == 1, "stop %s" % s)
            first = s["where"].split(";")[0]
            want = "compute_step %s:%d" % (SRC, line_of("crash here"))
            expect(first == want, "crash at %r, not %r" % (first, want))
            expect("crashed with SIGSEGV at " + want in err, "stderr: %s" % err[-800:])
            check_merge(d, ranks, survivors(ranks, snapshots), {1: "signal"})
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_term_process(mode, sig):
        """A termination signal to one process (a singleton MPI job): the same status with and
        without tardy, by the default action or the program's own handler, and a partial
        profile naming the signal. MPICH handles SIGUSR1 itself (Hydra's notice that a
        process failed) and the program goes on: then it ends normally, the partial profile
        gives way to the complete one, and only the stderr line tells of the signal."""
        name = signal.Signals(sig).name
        d, rc, out, err = launch([mode, "6"], 0, True, term_after=0.3, sig=sig)
        try:
            base = baseline([mode, "6"], 0, term_after=0.3, sig=sig)
            expect(rc == base, "status %d under tardy, %d without" % (rc, base))
            expect(rc in ((7,) if mode == "handler" else (-sig, 0)), "status %d" % rc)
            if mode == "handler":
                expect("own handler" in out, "the program's handler did not run: %r" % out)
            expect("stopped by %s" % name in err, "stderr: %s" % err[-500:])
            files, profs = partials(d)
            if rc == 0:
                expect(not profs and glob.glob(os.path.join(d, "tardy-*.json")),
                       "after going on: %s" % os.listdir(d))
                return
            expect(len(profs) == 1, "%d partial profiles" % len(profs))
            s = profs[0]["partial"]["stopped"][0]
            expect(s["signal"] == name and s["reason"] == "signal", "stop %s" % s)
            expect("dies.c" in s.get("where", ""), "where: %r" % s.get("where"))
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_term_launcher(ranks):
        """SIGTERM to mpiexec (what Slurm sends at the time limit), snapshots on: the launcher
        forwards it; every rank left a profile, those that got the signal say so. Hydra's
        status is whatever it makes of the first rank it sees end: 0 or 15 without tardy
        (racy), and also 9 with it, when Hydra kills a rank that is still waiting for its
        writer (the ranks' own statuses are the same: test_term_process); Open MPI's mpirun
        ends with 1, with and without tardy."""
        extra = {"TARDY_SNAPSHOT": "1"}
        d, rc, out, err = launch(["loop", "60"], ranks, True, extra, term_after=1.5)
        try:
            expect(rc in ((0, 9, 15) if ns.mpich_like() else (1,)),
                   "launcher exit %d: %s" % (rc, err[-800:]))
            files, profs = partials(d)
            expect(len(profs) == ranks, "%d partial profiles of %d ranks" % (len(profs), ranks))
            sigs = [p["partial"]["stopped"][0] for p in profs
                    if p["partial"]["stopped"][0]["reason"] == "signal"]
            expect(sigs and all(s["signal"] == "SIGTERM" for s in sigs),
                   "stops %s of %s: %s" % (sigs, [p["partial"]["stopped"][0]["reason"]
                                                  for p in profs], err[-800:]))
            check_merge(d, ranks, list(range(ranks)))
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_kill_snapshots(ranks):
        """SIGKILL (no warning) to every rank: with TARDY_SNAPSHOT=1 each rank's last snapshot
        is there and valid; merge shows all ranks as 'last snapshot'."""
        d = tempfile.mkdtemp(prefix="tardy-dies-")
        cmd = [ns.MPIEXEC, "-n", str(ranks), binary("dies"), "loop", "60"]
        p = subprocess.Popen(cmd, env=env_for(d, True, {"TARDY_SNAPSHOT": "1"}), cwd=d,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            expect("looping" in p.stdout.readline(), "no 'looping' line")
            time.sleep(2.5)
            pids = rank_pids(p.pid, binary("dies"))
            expect(len(pids) == ranks, "found %d rank processes" % len(pids))
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:  # the launcher, seeing one rank die, killed it first
                    pass
            p.communicate(timeout=ns.TIMEOUT)
            files, profs = partials(d)
            expect(len(profs) == ranks, "%d partial profiles of %d ranks" % (len(profs), ranks))
            expect(all(p_["partial"]["stopped"][0]["reason"] == "snapshot" for p_ in profs),
                   "reasons %s" % [p_["partial"]["stopped"][0]["reason"] for p_ in profs])
            out = check_merge(d, ranks, list(range(ranks)))
            expect("last snapshot" in out, "summary:\n%s" % out[:1200])
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
            shutil.rmtree(d, ignore_errors=True)

    def test_finalize_cleans():
        """A job that ends normally with snapshots on leaves its complete profile only, and
        counts its snapshots per rank."""
        d, rc, out, err = launch(["loop", "2.5"], 2, True, {"TARDY_SNAPSHOT": "1"})
        try:
            expect(rc == 0, "exit %d: %s" % (rc, err[-800:]))
            expect(not glob.glob(os.path.join(d, "*.partial.json")), "partial files left")
            full = [f for f in glob.glob(os.path.join(d, "tardy-*.json"))]
            expect(len(full) == 1, "profiles: %s" % full)
            prof = run.load_profile(full[0])
            snaps = prof["ranks"].get("snapshots", {})
            expect(snaps.get("min", 0) >= 1, "snapshots per rank: %s" % snaps)
            expect("partial" not in prof and prof["run"].get("run_id"), "run: %s" % prof["run"])
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_merge_fuzz():
        """Truncated, corrupted and mixed partial files: a clear error naming the file, never a
        crash (exit 1, a message, no signal)."""
        d, rc, out, err = launch(["loop", "5"], 2, True, {"TARDY_SNAPSHOT": "1"},
                                 term_after=1.2)
        d2, rc2, _, _ = launch(["abort", "3"], 2, True)
        fz = tempfile.mkdtemp(prefix="tardy-fuzz-")
        try:
            files, _ = partials(d)
            other, _ = partials(d2)
            expect(files and other, "no partial files to fuzz (%s, %s)" % (files, other))
            good = open(files[0], "rb").read()
            rng = random.Random(17)
            bad = []
            for k in range(40):
                cut = rng.randrange(0, len(good))
                if k % 4 == 0:
                    data = good[:cut]
                elif k % 4 == 1:
                    b = bytearray(good)
                    for _ in range(1 + k % 5):
                        b[rng.randrange(len(b))] = rng.choice(b'{}[]":,0123456789-enul ')
                    data = bytes(b)
                elif k % 4 == 2:
                    text = good.decode()
                    keys = ['"rank": ', '"ranks": ', '"stopped": ', '"count": ', '"run_id": ',
                            '"sum": ', '"calls": ', '"mpi": ']
                    key = keys[k % len(keys)]
                    i = text.find(key)
                    repl = rng.choice(['"x"', '-5', '1e308', 'null', '[]', '{}', '99999'])
                    j = i + len(key)
                    end = j
                    while end < len(text) and text[end] not in ',\n}':
                        end += 1
                    data = (text[:j] + repl + text[end:]).encode() if i >= 0 else good[:cut]
                else:
                    data = good[:cut] + b"\x00\xff garbage"
                path = os.path.join(fz, "case%02d.partial.json" % k)
                open(path, "wb").write(data)
                bad.append(path)
            for path in bad:
                rc, out, err = merge([path, files[-1]] if len(files) > 1 else [path])
                expect(rc in (0, 1) and (rc == 0 or path in err or files[-1] in err),
                       "merge of %s: exit %d, stderr %r" % (path, rc, err[-300:]))
            rc, out, err = merge([files[0], other[0]])
            expect(rc == 1 and "another job" in err and other[0] in err,
                   "mixed jobs: exit %d, %r" % (rc, err))
            rc, out, err = merge([files[0], files[0]])
            expect(rc == 1 and "rank" in err, "the same rank twice: exit %d, %r" % (rc, err))
            rc, out, err = merge([os.path.join(fz, "none.json")])
            expect(rc == 1 and "none.json" in err, "missing file: exit %d, %r" % (rc, err))
        finally:
            for x in (d, d2, fz):
                shutil.rmtree(x, ignore_errors=True)

    out = []
    for n in (2, 4):
        out.append(("partial/abort -n %d" % n, lambda n=n: test_abort(n, False)))
        out.append(("partial/abort, snapshots -n %d" % n, lambda n=n: test_abort(n, True)))
        out.append(("partial/crash -n %d" % n, lambda n=n: test_crash(n, False)))
        out.append(("partial/crash, snapshots -n %d" % n, lambda n=n: test_crash(n, True)))
        out.append(("partial/SIGTERM to mpiexec -n %d" % n,
                    lambda n=n: test_term_launcher(n)))
        out.append(("partial/SIGKILL, snapshots -n %d" % n,
                    lambda n=n: test_kill_snapshots(n)))
    for prog in ("dies_f", "dies_f_f08"):
        out.append(("partial/abort from Fortran (%s) -n 2" % prog,
                    lambda p=prog: test_abort_fortran(p)))
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGXCPU, signal.SIGUSR1):
        out.append(("partial/%s, no handler of the program's" % sig.name,
                    lambda s=sig: test_term_process("loop", s)))
        out.append(("partial/%s, the program's handler" % sig.name,
                    lambda s=sig: test_term_process("handler", s)))
    out.append(("partial/finalize removes snapshots", test_finalize_cleans))
    out.append(("partial/merge fuzz", test_merge_fuzz))
    return out


for _name, _fn in cases(run):
    room.case(_name, _fn)
