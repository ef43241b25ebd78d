"""tardy diff: two runs of tests/mpi/diff_phases with a known change (one phase's work
doubled, the closing call of a round swapped), runs at different rank counts, bad input."""
import glob
import json
import os
import re
import subprocess

from run import Room, Run, TARDY, binary, expect, site_line

room = Room("diff")
SRC = "tests/mpi/diff_phases.c"


def profile_path(run):
    expect(run.rc == 0, "exit %d: %s" % (run.rc, run.err[-1500:]))
    files = glob.glob(os.path.join(run.dir, "tardy-*.json"))
    expect(len(files) == 1, "%d profiles in %s" % (len(files), run.dir))
    return files[0]


def tardy_diff(*args):
    p = subprocess.run([TARDY, "diff"] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def two_runs(a, b, check):
    """Run diff_phases with arguments a and b ((ranks, solve ms, closing call)), then check
    the profiles' paths and the seconds each run solved per rank, as the program measured."""
    runs = [Run([binary("diff_phases"), str(ms), closing], ranks) for ranks, ms, closing in (a, b)]
    try:
        paths = [profile_path(r) for r in runs]
        solved = [[float(x) for x in re.findall(r"^solve rank \d+: (\S+) s$", r.out, re.M)]
                  for r in runs]
        check(*paths, *[sum(s) / len(s) for s in solved])
    finally:
        for r in runs:
            r.cleanup()


def near(got, want, what):
    """Within 10% or 5 ms of what the program measured (tardy's interval also holds the
    instructions around the busy wait and the wrappers' own time)."""
    expect(abs(got - want) <= max(0.1 * want, 0.005), "%s: %.6f s, the program measured %.6f s"
           % (what, got, want))


def line_of(doc, site):
    """The line of a site's innermost frame: callpaths list frame ids, a frame is [function,
    file id, line] (docs/diff-schema.md)."""
    ids = doc["callpaths"][site["callpath"]]
    return doc["frames"][ids[0]][2] if ids else 0


def solve_row(doc):
    """The interval setup_done -> solve_done of a diff document."""
    rows = [r for r in doc["intervals"] if line_of(doc, r["from"]) == site_line(SRC, "setup_done")
            and line_of(doc, r["to"]) == site_line(SRC, "solve_done")]
    expect(len(rows) == 1, "%d rows for the solve interval" % len(rows))
    return rows[0]


def check_sorted(doc):
    for kind in ("mpi", "intervals", "waits"):
        changes = [abs(r["time"]["change"]) for r in doc[kind]]
        expect(changes == sorted(changes, reverse=True), "%s not sorted by |change|" % kind)


def test_changed_phase():
    def check(a, b, solved_a, solved_b):
        rc, text, err = tardy_diff(a, b)
        expect(rc == 0, "exit %d: %s" % (rc, err))
        expect(all(len(line) <= 100 for line in text.splitlines()), "a line over 100 columns")
        table = text.split("== compute intervals")[1].splitlines()
        first = table[2]
        expect("main:%d MPI_Barrier -> main:%d MPI_Allreduce" % (
            site_line(SRC, "setup_done"), site_line(SRC, "solve_done")) in first and
            " +" in first and " ms" in first, "first interval row: %r" % first)
        rc, out, err = tardy_diff("--json", a, b)
        expect(rc == 0, "--json exit %d: %s" % (rc, err))
        doc = json.loads(out)
        expect(doc["schema"] == "tardy-diff" and doc["version"] == 2 and doc["same_ranks"],
               "header %s" % {k: doc[k] for k in ("schema", "version", "same_ranks")})
        check_sorted(doc)
        row = solve_row(doc)
        expect(row == doc["intervals"][0],
               "the solve interval is not first: %s" % doc["intervals"][0])
        # 200 ms of solving per rank became 400 ms
        expect(row["status"] == "both" and row["time"]["change"] > 0, "solve interval %s" % row)
        near(row["time"]["change"], solved_b - solved_a, "change of the solve interval")
        status = {(r["function"], line_of(doc, r)): r["status"] for r in doc["mpi"]}
        expect(status.get(("MPI_Bcast", site_line(SRC, "closing_bcast"))) == "new" and
               status.get(("MPI_Reduce", site_line(SRC, "closing_reduce"))) == "vanished" and
               status.get(("MPI_Allreduce", site_line(SRC, "solve_done"))) == "both",
               "statuses %s" % status)
        bcast = [r for r in doc["mpi"] if r["function"] == "MPI_Bcast"][0]
        expect(bcast["count"] == {"a": 0, "b": 10, "change": 10, "relative": None} and
               bcast["bytes"]["b"] == 8 * 10 * 2 / 2, "new MPI_Bcast row %s" % bcast)
        expect("(1 new, 1 vanished)" in text.split("== MPI call sites")[1].splitlines()[0],
               "MPI heading: %s" % text.split("== MPI call sites")[1].splitlines()[0])
        rc, top1, _ = tardy_diff("--top", "1", a, b)
        intervals = top1.split("== compute intervals")[1].split("\n== ")[0]
        expect(rc == 0 and len(intervals.splitlines()) == 3,
               "--top 1 shows more than one interval:\n%s" % intervals)
    two_runs((2, 200, "reduce"), (2, 400, "bcast"), check)


def test_rank_counts():
    def check(a, b, solved_a, solved_b):
        rc, text, err = tardy_diff(a, b)
        expect(rc == 0 and "rank counts differ (A 1, B 2)" in text, "exit %d: %s%s" % (
            rc, text[:600], err))
        rc, out, err = tardy_diff("--json", a, b)
        doc = json.loads(out)
        expect(not doc["same_ranks"] and doc["a"]["ranks"] == 1 and doc["b"]["ranks"] == 2,
               "ranks %s %s" % (doc["a"]["ranks"], doc["b"]["ranks"]))
        t = solve_row(doc)["time"]
        # per-rank means: 100 ms of solving per rank in both runs (not 100 ms against 200 ms)
        near(t["a"], solved_a, "solve interval per rank at 1 rank")
        near(t["b"], solved_b, "solve interval per rank at 2 ranks")
    two_runs((1, 100, "reduce"), (2, 100, "reduce"), check)


def test_bad_input():
    def check(a, b, *_):
        d = os.path.dirname(a)
        broken, other = os.path.join(d, "broken.json"), os.path.join(d, "other.json")
        open(broken, "w").write(open(a).read()[:300])
        open(other, "w").write('{"schema": "something-else"}')
        for args, rc, needle in (([a, broken], 1, broken), (["/nonexistent.json", b], 1,
                                 "/nonexistent.json"), ([other, b], 1, "not a tardy profile"),
                                 ([a], 2, "usage"), ([a, b, b], 2, "not a third"),
                                 (["--top", "0", a, b], 2, "--top"),
                                 (["--frobnicate", a, b], 2, "--frobnicate")):
            got, out, err = tardy_diff(*args)
            expect(got == rc and needle in err and not out,
                   "tardy diff %s: exit %d, stderr %r" % (" ".join(args), got, err))
    two_runs((1, 20, "reduce"), (1, 20, "bcast"), check)


room.case("diff/a doubled phase is the first row, new and vanished rows", test_changed_phase)
room.case("diff/different rank counts compare per-rank means", test_rank_counts)
room.case("diff/unreadable, corrupt and foreign input, bad arguments", test_bad_input)
