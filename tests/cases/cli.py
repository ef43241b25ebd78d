"""The tardy command on a job's profile (tardy report) and `make install`."""
import glob
import json
import os
import shutil
import stat
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


# ---- tardy predict --extrap: what the readers refuse and what the writers must not lose --------

def tardy_bytes(args, **kw):
    """tardy with args (str or bytes, as a file name or target may be bytes that are not
    UTF-8), its output as bytes."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(["timeout", str(TIMEOUT), TARDY] + args, **kw)


def extrap_text(work, name, body):
    """A file of body (bytes) in work, its path (bytes when name is)."""
    path = os.path.join(os.fsencode(work) if isinstance(name, bytes) else work, name)
    with open(path, "wb") as f:
        f.write(body)
    return path


LAW = b"PARAMETER p\nPOINTS 2 4 8 16\nREGION r\nMETRIC t\nDATA 1\nDATA 2\nDATA 3\nDATA 4\n"


def test_not_utf8():
    """A name that is not UTF-8 (JSON's strings are, and jansson refuses others: the
    prediction was dropped with exit 0) is refused with the file, line and column; a file
    name or a target that is not UTF-8 is written with U+FFFD for each stray byte, the
    document valid and nothing left out."""
    work = tempfile.mkdtemp(prefix="tardy-utf8-")
    try:
        path = extrap_text(work, "region.txt", LAW.replace(b"REGION r", b"REGION r\xff"))
        p = tardy_bytes(["predict", "--extrap", path, "--at", "p=64", "--json"])
        want = (path + ":3: byte 0xff at column 9 is not UTF-8").encode()
        expect(p.returncode == 1 and want in p.stderr and not p.stdout,
               "a region not UTF-8: exit %d, %r" % (p.returncode, p.stderr))
        path = extrap_text(work, b"law\xff.txt", LAW)
        p = tardy_bytes(["predict", "--extrap", path, "--at", b"p=64;p=32,\xfe=3", "--json"])
        doc = json.loads(p.stdout) if p.returncode == 0 else {}  # bytes: decoded as UTF-8
        source = doc.get("source", {})
        expect(source.get("extrap", "").endswith("law\ufffd.txt") and
               source.get("program") == source.get("extrap"), "source: %s" % source)
        expect(doc.get("targets") == "p=64;p=32,\ufffd=3" and len(doc["predictions"]) == 1 and
               "no run has the parameter \ufffd" in doc.get("note", ""),
               "targets, predictions, note: %s" % doc)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# Prints, for each file, whether Extra-P 4.2.5's own text reader takes it.
EXTRAP_TAKES = """
import json, sys, warnings
warnings.filterwarnings("ignore")
from extrap.fileio.file_reader.text_file_reader import TextFileReader
takes = {}
for path in sys.argv[1:]:
    try:
        TextFileReader().read_experiment(path)
        takes[path] = True
    except Exception:
        takes[path] = False
print(json.dumps(takes))
"""


def extrap_takes(paths):
    """{path: whether Extra-P's text reader takes it}, or None when Extra-P is not here."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    src = os.environ.get("EXTRAP", os.path.join(top, "..", "shared", "vendor", "extrap"))
    if not os.path.isdir(os.path.join(src, "extrap")):
        return None
    env = dict(os.environ, PYTHONPATH="%s:%s" % (src, os.path.join(src, "_stubs")))
    p = subprocess.run(["timeout", "300", "/usr/bin/python3", "-c", EXTRAP_TAKES] + paths,
                       env=env, capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else None


def test_points_grouped():
    """POINTS of several parameters are one parenthesised group each, as Extra-P's reader
    takes them (unparenthesised, it makes points of one value); a group of other than one
    value per parameter is named (it was re-chunked two values at a time, the file read as
    other points). One parameter: plain or parenthesised, the same points."""
    work = tempfile.mkdtemp(prefix="tardy-points-")
    try:
        tail = b"\nREGION r\nMETRIC t\nDATA 1\nDATA 2\nDATA 3\nDATA 4\n"
        refused = []
        for points, want in ((b"(2 16) (4) (8 64 5) (16 128)",
                              ":2: point 2, (4), has 1 value for 2 parameters (p n)"),
                             (b"(2 16) (4 32) (8 64 5) (16 128)",
                              ":2: point 3, (8 64 5), has 3 values for 2 parameters (p n)"),
                             (b"2 16 4 32 8 64 16 128",
                              ":2: the points of 2 parameters go in parentheses, a group per "
                              "point: (p n) (p n) ..."),
                             (b"(2 16) (4 32) 8 64 (16 128)",
                              ":2: '8' outside the parentheses of a point"),
                             (b"(2 16) (4 32) (8 64", ":2: point 3, (8 64, has no ')'")):
            path = extrap_text(work, "p%d.txt" % len(refused), b"PARAMETER p n\nPOINTS " +
                               points + tail)
            p = tardy_bytes(["predict", "--extrap", path, "--at", "p=64,n=64"], text=True)
            expect(p.returncode == 1 and path + want in p.stderr,
                   "%s: exit %d, %r (want %r)" % (points, p.returncode, p.stderr, want))
            refused.append(path)
        path = extrap_text(work, "p.txt", b"PARAMETER p n\nPOINTS (2 16)(4 32)  ( 8 64 ) "
                           b"(16 128)" + tail)
        p = tardy_bytes(["predict", "--extrap", path, "--at", "p=64,n=64"], text=True)
        expect(p.returncode in (0, 3) and "4 runs" in p.stdout, "groups: %r" % p.stderr)
        taken, docs = [path], []
        for points in (b"2 4 8 16", b"(2) (4) (8) (16)"):
            taken.append(extrap_text(work, "one%d.txt" % len(docs),
                                     LAW.replace(b"2 4 8 16", points)))
            p = tardy_bytes(["predict", "--extrap", taken[-1], "--at", "p=64", "--json"])
            expect(p.returncode == 0, "one parameter, %s: %r" % (points, p.stderr))
            docs.append(json.loads(p.stdout)["predictions"])
        expect(docs[0] == docs[1] and docs[0], "plain and parenthesised: %s" % docs)
        extrap = extrap_takes(refused + taken)  # Extra-P, where it is here, agrees
        expect(extrap is None or extrap == dict([(f, False) for f in refused] +
                                                [(f, True) for f in taken]),
               "Extra-P takes: %s" % extrap)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_stdout_full():
    """Output that does not reach stdout (a full disk, /dev/full; here also a descriptor open
    for reading only, as some containers have no /dev/full) is exit 1 with a message, from
    every command that prints there (it was exit 0, nothing written)."""
    work = tempfile.mkdtemp(prefix="tardy-full-")
    try:
        law = extrap_text(work, "law.txt", LAW)
        store = os.path.join(work, "store")
        os.mkdir(store)
        shutil.copy(OLD, os.path.join(store, "tardy-v1.json"))
        sinks = [(law, "r")]
        if stat.S_ISCHR(os.stat("/dev/full").st_mode if os.path.exists("/dev/full") else 0):
            sinks.append(("/dev/full", "w"))
        for args in (["predict", "--extrap", law, "--at", "p=64", "--json"],
                     ["predict", "--extrap", law, "--at", "p=64"],
                     ["predict", "--help"], ["report", OLD], ["export-extrap", "--store", store],
                     ["merge", OLD, "-o", os.path.join(work, "m.json")],
                     ["diff", OLD, OLD, "--json"], ["version"], ["help"], ["help", "options"]):
            with open(os.devnull, "w") as ok:
                p = tardy_bytes(args, stdout=ok, text=True)
            expect(p.returncode == 0, "tardy %s > /dev/null: exit %d, %s" % (
                " ".join(args), p.returncode, p.stderr))
            for sink, mode in sinks:
                with open(sink, mode) as out:
                    p = tardy_bytes(args, stdout=out, text=True)
                expect(p.returncode == 1 and "writing the standard output failed" in p.stderr,
                       "tardy %s > %s (%s): exit %d, %r" % (
                           " ".join(args), sink, mode, p.returncode, p.stderr))
        # a file that cannot grow (ulimit -f 0, SIGXFSZ ignored: the write fails with EFBIG)
        out = os.path.join(work, "out.txt")
        p = subprocess.run(["bash", "-c", 'trap "" XFSZ; ulimit -f 0; exec "$@"', "-", TARDY,
                            "export-extrap", "--store", store, "-o", out], capture_output=True,
                           text=True)
        expect(p.returncode == 1 and "tardy export-extrap: writing %s failed" % out in p.stderr
               and "regions written" not in p.stderr, "export-extrap -o, the file full: exit "
               "%d, %r" % (p.returncode, p.stderr))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_extrap_messages():
    """What is wrong with an Extra-P input said as it is: a NUL byte (not a long line), a
    JSON value that is no object (not an unknown field), PARAMETER naming nothing (not POINTS
    before PARAMETER), a number beyond a double's range (not "not a number"); a UTF-8 byte
    order mark read past, as most tools do; an option where the file or the targets belong
    named (it was taken for the file)."""
    work = tempfile.mkdtemp(prefix="tardy-messages-")
    try:
        for body, want in ((LAW.replace(b"4 8", b"4\0 8"), ":2: a NUL byte at column 11"),
                           (b"[]\n", ": JSON, but an array where Extra-P's inputs hold an "
                                      "object"),
                           (b" null\n", ": JSON, but null where Extra-P's inputs hold an "
                                        "object"),
                           (b"PARAMETER \nPOINTS 2 4\n", ":1: PARAMETER names no parameter"),
                           (LAW.replace(b"DATA 3", b"DATA 1e309"),
                            ":7: DATA holds 1e309, beyond a double's range (1.8e308)"),
                           (LAW.replace(b"8 16", b"8 -1e400"),
                            ":2: POINTS holds -1e400, beyond a double's range (1.8e308)")):
            path = extrap_text(work, "in.txt", body)
            p = tardy_bytes(["predict", "--extrap", path, "--at", "p=64"], text=True)
            expect(p.returncode == 1 and path + want in p.stderr,
                   "%r: exit %d, %r (want %r)" % (body, p.returncode, p.stderr, want))
        plain = tardy_bytes(["predict", "--extrap", extrap_text(work, "a.txt", LAW), "--at",
                             "p=64", "--json"])
        bom = tardy_bytes(["predict", "--extrap", extrap_text(work, "b.txt", b"\xef\xbb\xbf" +
                                                              LAW), "--at", "p=64", "--json"])
        expect(bom.returncode == 0 and json.loads(bom.stdout)["predictions"] ==
               json.loads(plain.stdout)["predictions"], "a BOM: %r" % bom.stderr)
        law = os.path.join(work, "a.txt")
        for args, want in ((["--extrap", "--at", "p=64"],
                            "--extrap needs a value, not the option '--at'"),
                           (["--extrap", law, "--at", "--json"],
                            "--at needs a value, not the option '--json'")):
            p = tardy_bytes(["predict"] + args, text=True)
            expect(p.returncode == 2 and "tardy: " + want in p.stderr,
                   "%s: exit %d, %r" % (args, p.returncode, p.stderr))
    finally:
        shutil.rmtree(work, ignore_errors=True)


room.case("cli/tardy report", test_report_cli)
room.case("cli/version 1 profiles", test_old_version)
room.case("cli/make install", test_install)
room.case("cli/tardy export --hatchet, read by Hatchet", test_export_hatchet)
room.case("cli/tardy predict --json: names not UTF-8 refused, or written as U+FFFD",
          test_not_utf8)
room.case("cli/tardy predict --extrap: a point of several parameters is a group in parentheses",
          test_points_grouped)
room.case("cli/a full standard output is exit 1, from every command", test_stdout_full)
room.case("cli/tardy predict --extrap: a broken input said as it is", test_extrap_messages)
