"""Counters (PAPI), checked exactly through software-defined events (tests/mpi/sde_counters.c),
and unavailable events."""
import glob
import os
import re
import subprocess

from run import Room, Skip, TARDY, at_site, binary, check_p2p, expect, one_row, with_run
from cases.mpit import PVC_HAS, PVC_NAME

room = Room("counters")


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


for _n in (1, 2, 4):
    room.case("counters/SDE exact -n %d" % _n, lambda n=_n: test_sde(n))
room.case("counters/SDE exact singleton", lambda: test_sde(0))
room.case("counters/SDE with a disabled event", lambda: test_sde(2, ",PAPI_L1_DCM"))
room.case("counters/no such event", lambda: test_counters_unavailable(
    "NO_SUCH_EVENT", "PAPI event NO_SUCH_EVENT is not read"))
room.case("counters/hardware event without a PMU", lambda: test_counters_no_pmu())
room.case("counters/off without TARDY_PAPI", test_counters_off)
room.case("counters/multiplexing not possible", test_counters_multiplex)
room.case("counters/tardy report", test_counters_report)

room.part("pvars")  # run after mpit:pvars (ORDER in tests/run.py)
room.case("counters/SDE events and a performance variable share the columns -n 2",
          test_pvar_counters_with_sde)
