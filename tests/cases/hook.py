"""The Lua init hook tardy.on_init: control variables chosen by the user's script."""
import glob
import os
import re
import shutil
import tempfile

from run import Room, Run, expect, load_profile, mpich_like, site_line, with_run
from cases.mpit import ALG, ALG_TEXT, MPIT_PROG, cvar

room = Room("hook")


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
                prof = load_profile(path)
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


for _n in (1, 2, 4, 0):
    room.case("hook/tardy.on_init sets a control variable %s" % (
        "-n %d" % _n if _n else "singleton"), lambda n=_n: test_hook_set(n))
room.case("hook/a number as the value -n 2", lambda: test_hook_set(2, "number", 4, "4"))
room.case("hook/nil: nothing set", test_hook_none)
room.case("hook/after TARDY_CVARS", test_hook_after_option)
room.case("hook/earlier runs from the store", test_hook_store)
room.case("hook/docs example", test_hook_docs_example)
for _mode, _needle in (("runtime_error", None), ("endless", None),
                       ("wrong_type", "init_hooks.lua:%d: tardy.on_init hook returned a string"
                        % site_line(HOOKS, "hook")),
                       ("bad_value_type", "returned %s = a table" % ALG),
                       ("unknown", "no control variable NO_SUCH_CONTROL_VARIABLE"),
                       ("bad_value", "'frobnicate' is not a value of " + ALG)):
    room.case("hook/broken: %s" % _mode, lambda m=_mode, n=_needle: test_hook_broken(m, n))
room.case("hook/TARDY_MPIT=0: not run", lambda: test_hook_broken(
    "set", "tardy.on_init is not run: MPI_T is not in use", {"TARDY_MPIT": "0"}))
