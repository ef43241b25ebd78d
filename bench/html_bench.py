#!/usr/bin/env python3
"""make bench's HTML rows (BENCH_ONLY=html: only these): for the demo's profile (Jacobi 768 x
200 at 4 ranks, as scripts/demo runs it) and for a synthetic profile of 10,000 call paths
(bench/synth_callpaths.py), and for the store page of an Extra-P file of three parameters
(bench/predict/synth_3p_corner.txt: 8 series, 124 points, curves of 24 predicted points over
each parameter), the time `tardy html` takes to write the page (wall and CPU), its size, and
the page's load time in headless Chromium: from the start of the navigation to the end of its
scripts (the page's own mark, tests/browser.py), median of 3; and the page of 1,000 call paths
at 8 and at 100,000 ranks."""
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

B = os.environ.get("B", "build")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.mpich")
TARDY = os.path.abspath(os.path.join(B, "bin", "tardy"))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
import browser  # noqa: E402
REPEAT = 3


def demo_profile(d):
    e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
    e.update({"TARDY_PROFILE": d, "TARDY_SUMMARY": "none", "TARDY_PARAMS": "n=768,iterations=200"})
    cmd = [os.path.join(B, "bin", "tardy-run"), "--", "timeout", "300", MPIEXEC, "-n", "4",
           os.path.join(B, "examples", "jacobi"), "768", "200"]
    p = subprocess.run(cmd, env=e, capture_output=True, text=True)
    files = glob.glob(os.path.join(d, "tardy-*.json"))
    if p.returncode != 0 or len(files) != 1:
        sys.exit("bench html: the demo failed: %s" % p.stderr[-500:])
    return files[0]


def write_time(source, page):
    """Median wall and CPU seconds of `tardy html SOURCE -o page` (source: the arguments)."""
    walls, cpus = [], []
    for _ in range(REPEAT):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.time()
        p = subprocess.run(["timeout", "300", TARDY, "html"] + source + ["-o", page],
                           capture_output=True, text=True)
        walls.append(time.time() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if p.returncode != 0:
            sys.exit("bench html: tardy html failed: %s" % p.stderr)
    return statistics.median(walls), statistics.median(cpus)


def row(label, profile, d, source=None):
    """source: the arguments of `tardy html` when not the profile itself."""
    page = os.path.join(d, os.path.basename(profile).rsplit(".", 1)[0] + ".html")
    wall, cpu = write_time(source or [profile], page)
    loads = []
    for _ in range(REPEAT):
        shown = browser.browse(page)
        if shown.errors or not shown.ready:
            sys.exit("bench html: %s did not draw: %s" % (page, shown.errors[:3]))
        loads.append(shown.drawn_ms)
    print("  %-34s profile %8.0f KiB, page %8.0f KiB; written in %.2f s (%.2f s CPU); "
          "drawn %.2f s after the navigation started (%.2f..%.2f)" % (
              label, os.path.getsize(profile) / 1024, os.path.getsize(page) / 1024, wall, cpu,
              statistics.median(loads) / 1e3, min(loads) / 1e3, max(loads) / 1e3))


def main():
    if not browser.CHROMIUM:
        print("HTML report: skipped, chromium is not installed (ci/deps)")
        return
    d = tempfile.mkdtemp(prefix="tardy-bench-html-")
    try:
        load = os.getloadavg()[0]
        demo = demo_profile(d)
        synth = os.path.join(d, "synth-10000.json")
        subprocess.run([sys.executable, os.path.join(HERE, "synth_callpaths.py"), demo, synth,
                        "10000"], check=True)
        print("HTML report (tardy html, headless Chromium; median of %d; load average %.1f):"
              % (REPEAT, (load + os.getloadavg()[0]) / 2))
        row("demo (jacobi 768x200, 4 ranks)", demo, d)
        row("synthetic, 10,000 call paths", synth, d)
        three = os.path.join(HERE, "predict", "synth_3p_corner.txt")
        row("Extra-P file, three parameters", three, d, ["--extrap", three])
        sizes = []
        for ranks in (8, 100000):
            path = os.path.join(d, "synth-1000-%d.json" % ranks)
            subprocess.run([sys.executable, os.path.join(HERE, "synth_callpaths.py"), demo, path,
                            "1000", str(ranks)], check=True)
            write_time([path], path[:-5] + ".html")
            sizes.append((ranks, os.path.getsize(path[:-5] + ".html")))
        print("  page of 1,000 call paths: %s (histograms, no per-rank arrays)" % ", ".join(
            "%d KiB at %s ranks" % (size // 1024, format(ranks, ",")) for ranks, size in sizes))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
