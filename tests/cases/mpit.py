"""MPI_T: control variables recorded and written (TARDY_CVARS), performance variables per
call (TARDY_PVAR_COUNTERS), and events from a test library (no MPI library here has any)."""
import os
import re

from run import (
    B, LIB, QMPI, Room, Run, Skip, at_site, binary, expect, frames_of, mpich_like, one_row,
    with_run)

room = Room("mpit")


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


for _n in (1, 2):
    room.case("mpit/control variables recorded -n %d" % _n, lambda n=_n: test_mpit_record(n))
room.case("mpit/control variables recorded singleton", lambda: test_mpit_record(0))
room.case("mpit/TARDY_CVARS writes after MPI_Init", test_mpit_write)
room.case("mpit/TARDY_CVARS bad names and values", test_mpit_bad_writes)
room.case("mpit/TARDY_MPIT=0", test_mpit_off)

room.part("pvars")  # run after waits (ORDER in tests/run.py)
for _n in (2, 4):
    room.case("mpit/performance variable per call site (TARDY_PVAR_COUNTERS) -n %d" % _n,
              lambda n=_n: test_pvar_counters(n))

room.part("events")  # run after counters:pvars
for _n in (1, 2, 4):
    room.case("mpit/events per call path (test library) -n %d" % _n,
              lambda n=_n: test_mpit_events(n))
room.case("mpit/events per call path (test library) singleton", lambda: test_mpit_events(0))
