"""The tardy command on a job's profile (tardy report) and `make install`."""
import glob
import os
import shutil
import subprocess
import tempfile

from run import MPIEXEC, Room, TARDY, TIMEOUT, binary, expect, with_run

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
                                 (["frobnicate"], 2, "unknown command")):
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
                  "share/tardy/lua/policies/default.lua"):
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
        e["PKG_CONFIG_PATH"] = os.path.join(prefix, "lib/pkgconfig")
        p = subprocess.run(["pkg-config", "--cflags", "--libs", "tardy"], env=e,
                           capture_output=True, text=True)
        expect(p.returncode == 0 and "-ltardy" in p.stdout and prefix in p.stdout,
               "pkg-config: %s %s" % (p.stdout, p.stderr))
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


room.case("cli/tardy report", test_report_cli)
room.case("cli/make install", test_install)
