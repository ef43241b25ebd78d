"""The tardy command on a job's profile (tardy report) and `make install`."""
import glob
import json
import os
import shutil
import subprocess
import tempfile

from run import B, MPIEXEC, Room, Skip, TARDY, TIMEOUT, binary, expect, load_profile, with_run

room = Room("cli")


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
                                 (["frobnicate"], 2, "unknown command"),
                                 (["help", "frobnicate"], 2, "no help on 'frobnicate'"),
                                 (["export-extrap"], 2, "which run store?"),
                                 (["export-extrap", "--store", run.dir, "-o", "/nonexistent/x"],
                                  1, "cannot write /nonexistent/x: No such file")):
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
                  "share/tardy/lua/policies/default.lua", "share/tardy/lua/lib/series.lua"):
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
        # the installed policies find their libraries (tardy.require) in the prefix
        p = subprocess.run([os.path.join(prefix, "bin/tardy"), "predict", "--extrap",
                            "bench/predict/synth_p.txt", "--at", "p=256"],
                           capture_output=True, text=True)
        expect(p.returncode == 0 and "amdahl" in p.stdout, "installed tardy predict: %s" % (
            p.stderr[-500:]))
        e["PKG_CONFIG_PATH"] = os.path.join(prefix, "lib/pkgconfig")
        p = subprocess.run(["pkg-config", "--cflags", "--libs", "tardy"], env=e,
                           capture_output=True, text=True)
        expect(p.returncode == 0 and "-ltardy" in p.stdout and prefix in p.stdout,
               "pkg-config: %s %s" % (p.stdout, p.stderr))
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


HATCHET_CHECK = r"""
import json, sys
import hatchet as ht
export, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
gf = ht.GraphFrame.from_literal(export)
roots = gf.graph.roots
assert [r.frame["name"] for r in roots] == ["main"], [r.frame["name"] for r in roots]
df = gf.dataframe
def row(node):
    return df.loc[node]
main = roots[0]
assert abs(row(main)["time (inc)"] - want["total"]) <= 1e-9 * want["total"], row(main)
assert row(main)["time"] == 0, row(main)
by_name = {c.frame["name"]: c for c in main.children}
ring = by_name["Ring::pass"]
leaf = ring.children[0]
assert leaf.frame["name"] == "MPI_Sendrecv_replace" and leaf.frame["line"] == want["line"], leaf.frame
assert row(leaf)["count"] == want["count"] and row(leaf)["bytes"] == want["bytes"], row(leaf)
assert abs(row(leaf)["time"] - want["time"]) <= 1e-9 * want["time"], row(leaf)
assert row(ring)["time (inc)"] == row(leaf)["time (inc)"] and row(ring)["time"] == 0
assert "reduce_all<double>" in by_name and "MPI_Sendrecv_replace" in gf.tree()
print("hatchet read %d nodes" % len(df))
"""


def hatchet_path():
    """Hatchet built from ../shared/vendor/hatchet (or $HATCHET) into build/hatchet, or Skip."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    src = os.environ.get("HATCHET", os.path.join(top, "..", "shared", "vendor", "hatchet"))
    if not os.path.exists(os.path.join(src, "build.sh")):
        raise Skip("Hatchet is not here (%s; set HATCHET to its source)" % src)
    for module, package in (("pandas", "python3-pandas"), ("multiprocess", "python3-multiprocess")):
        if subprocess.run(["/usr/bin/python3", "-c", "import " + module]).returncode:
            raise Skip("Hatchet needs %s (ci/deps installs it)" % package)
    if not shutil.which("cython3"):
        raise Skip("building Hatchet needs cython3 (ci/deps installs it)")
    out = os.path.abspath(os.path.join(B, "hatchet"))
    if not os.path.exists(os.path.join(out, "hatchet", "cython_modules", "libs")):
        p = subprocess.run(["timeout", "600", os.path.join(src, "build.sh"), out],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "building Hatchet: %s" % p.stderr[-800:])
    return out


def test_export_hatchet():
    """tardy export --hatchet of the C++ program, read by Hatchet's from_literal: the tree of
    functions (demangled) with the MPI call sites as leaves, metrics as in the profile."""
    hatchet = hatchet_path()

    @with_run([binary("cxx")], 2)
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d: %s" % (run.rc, run.err[-800:]))
        path = glob.glob(os.path.join(run.dir, "tardy-*.json"))[0]
        out = os.path.join(run.dir, "hatchet.json")
        p = subprocess.run([TARDY, "export", "--hatchet", path, "-o", out], capture_output=True,
                           text=True)
        expect(p.returncode == 0 and os.path.exists(out), "export: %d %s" % (p.returncode, p.stderr))
        prof = run.profile
        ring = [r for r in prof["mpi"] if r["function"] == "MPI_Sendrecv_replace"][0]
        want = {"total": sum(r["time"]["sum"] for r in prof["mpi"]), "time": ring["time"]["sum"],
                "count": ring["count"]["sum"], "bytes": ring["sent"]["sum"] + ring["recv"]["sum"],
                "line": prof["callpaths"][ring["callpath"]]["frames"][0]["line"]}
        wanted = os.path.join(run.dir, "want.json")
        json.dump(want, open(wanted, "w"))
        env = dict(os.environ, PYTHONPATH="%s:%s/_stubs" % (hatchet, hatchet))
        p = subprocess.run(["timeout", str(TIMEOUT), "/usr/bin/python3", "-c", HATCHET_CHECK,
                            out, wanted], capture_output=True, text=True, env=env)
        expect(p.returncode == 0 and "hatchet read" in p.stdout, "Hatchet: %s" % p.stderr[-1500:])
        for args, rc, needle in ((["export", path], 2, "--hatchet"),
                                 (["export", "--hatchet"], 2, "which profile"),
                                 (["export", "--hatchet", "/nonexistent.json"], 1,
                                  "/nonexistent.json"),
                                 (["export", "--hatchet", path, "-o", "/nonexistent/x.json"], 1,
                                  "cannot write")):
            p = subprocess.run([TARDY] + args, capture_output=True, text=True)
            expect(p.returncode == rc and needle in p.stderr,
                   "tardy %s: exit %d, %r" % (" ".join(args), p.returncode, p.stderr))


OLD = "tests/unit/profile-v1.json"  # written by tardy before version 2 (3 ranks, waits)


def test_old_version():
    """A profile of version 1 reads in every command: tardy merge rewrites it as version 2,
    which tardy diff finds unchanged against it; report, export and html take both."""
    work = tempfile.mkdtemp(prefix="tardy-test-")
    try:
        new = os.path.join(work, "v2.json")
        tardy = lambda *args: subprocess.run([TARDY] + list(args), capture_output=True, text=True)
        p = tardy("merge", OLD, "-o", new)
        expect(p.returncode == 0 and "== MPI call paths" in p.stdout, "merge: %s" % p.stderr)
        prof, old = load_profile(new), json.load(open(OLD))
        expect(len(prof["mpi"]) == len(old["mpi"]) and len(prof["waits"]) == len(old["waits"]),
               "rows of version 2: %d, %d" % (len(prof["mpi"]), len(prof["waits"])))
        text = open(new).read()
        expect(len(text) * 2 < os.path.getsize(OLD) and '"mean"' not in text,
               "version 2 is %d bytes, version 1 %d" % (len(text), os.path.getsize(OLD)))
        p = tardy("diff", OLD, new, "--json")
        doc = json.loads(p.stdout) if p.returncode == 0 else {}
        rows = doc.get("mpi", []) + doc.get("intervals", []) + doc.get("waits", [])
        expect(rows and all(r["status"] == "both" and abs(r["time"]["change"]) < 1e-9
                            for r in rows), "diff of version 1 and 2: %s" % p.stderr)
        for args in (("report", OLD), ("export", "--hatchet", OLD, "-o", os.path.join(work, "h")),
                     ("html", OLD, "-o", os.path.join(work, "a.html")),
                     ("html", OLD, new, "-o", os.path.join(work, "b.html"))):
            p = tardy(*args)
            expect(p.returncode == 0, "tardy %s: %s" % (" ".join(args), p.stderr))
    finally:
        shutil.rmtree(work, ignore_errors=True)


room.case("cli/tardy report", test_report_cli)
room.case("cli/version 1 profiles", test_old_version)
room.case("cli/make install", test_install)
room.case("cli/tardy export --hatchet, read by Hatchet", test_export_hatchet)
