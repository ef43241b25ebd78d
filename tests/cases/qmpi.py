"""QMPI: tardy's own calls, and tardy stacked with a second QMPI tool (ci/qmpi)."""
import glob
import os
import re

from run import LIB, QMPI, QTOOL, Room, Run, binary, check_p2p, expect, with_run

room = Room("qmpi")


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
            # tardy's private communicator: MPI_Comm_idup (waited for yielding the core)
            expect(g["MPI_Comm_idup"] > w["MPI_Comm_idup"], "rank %d: tardy's private "
                   "communicator did not reach the tool behind it: %s" % (rank, diff))


room.case("qmpi/tardy's own calls go through own_X", test_own_calls)
if QMPI:
    for _n, _w in ((2, 0), (2, 1), (4, 1)):
        room.case("qmpi/second tool in front of tardy sees the program's calls only -n %d%s"
                  % (_n, " TARDY_WAITS=1" if _w else ""),
                  lambda n=_n, w=_w: test_qmpi_stack("qtool:tardy", n, w))
    room.case("qmpi/second tool behind tardy sees the program's and tardy's calls -n 2",
              lambda: test_qmpi_stack("tardy:qtool", 2, 0))
else:
    room.case("qmpi/tool list on an MPICH without QMPI", test_qmpi_compiled_out)
