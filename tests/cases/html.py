"""The HTML report in a real browser: headless Chromium opens the pages of the bundled examples
(wait states, MPI library memory, a run store with predictions), and the cases check what a
person would see in the DOM after the scripts ran, that the console stayed empty, and leave
a screenshot per page in build/html/. Skipped with the reason where chromium is absent."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import run
from cases.config import test_bad_option
from run import B, Room, Skip, TARDY, expect, with_run

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import browser  # noqa: E402  (tests/browser.py)

room = Room("html")
SHOTS = os.path.join(B, "html")


def example(name):
    return os.path.abspath(os.path.join(B, "examples", name))


def call_line(source, call):
    """Line of the first call of function call in source (no line numbers in tests)."""
    lines = [i for i, text in enumerate(open(source), 1)
             if re.match(r"\s*%s\(" % re.escape(call), text)]
    expect(lines, "no call of %s in %s" % (call, source))
    return lines[0]


def opened(path, shot):
    """The page at path as Chromium drew it, its screenshot in build/html/shot."""
    if not browser.CHROMIUM:
        raise Skip("chromium is not installed (ci/deps installs Debian's chromium)")
    os.makedirs(SHOTS, exist_ok=True)
    page = browser.browse(os.path.abspath(path), os.path.join(SHOTS, shot))
    expect(not page.errors, "console messages: %s" % page.errors[:5])
    expect(page.ready, "the page's scripts did not finish: %s" % page.dom[-800:])
    expect(os.path.getsize(os.path.join(SHOTS, shot)) > 10000, "no screenshot " + shot)
    return page


def axis_ticks(svg):
    """The tick labels of the first axis in svg."""
    return re.findall(r'<g class="tick"[^>]*><line[^>]*></line><text[^>]*>([^<]*)</text>',
                      svg.split("</g></g>")[0])


def time_axis(svg, signed=False):
    """The ticks of the first axis in svg: one unit, no trailing zeros (fmtTime had written
    "0 s", "5.00 ms", "10.0 ms" on one axis); signed: changes, "−2 ms", "±0 ms", "+2 ms"."""
    ticks = axis_ticks(svg)
    number = ("[+−±]" if signed else "") + r"(0|[1-9][0-9]*(\.[0-9]*[1-9])?|0\.[0-9]*[1-9])"
    expect(len(ticks) >= 2 and len({t.split(" ")[-1] for t in ticks}) == 1 and
           all(re.fullmatch(number + r" (ns|µs|ms|s)", t) for t in ticks), "time axis ticks %s" % ticks)


def rows_of(dom, cls):
    """The text of the body rows of the table of class cls."""
    m = re.search(r'<table class="%s">.*?<tbody>(.*?)</tbody>' % cls, dom, re.S)
    expect(m, "no table of class %s" % cls)
    rows = re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S)
    return [re.sub(r"<[^>]+>", " ", r) for r in rows]


def run_page(r, name):
    """The page tardy html makes of run r's profile, as Chromium drew it (build/html/name.png)."""
    expect(r.rc == 0, "exit %d: %s" % (r.rc, r.err[-1000:]))
    profile = glob.glob(os.path.join(r.dir, "tardy-*.json"))[0]
    html = os.path.join(r.dir, name + ".html")
    p = subprocess.run(["timeout", "60", TARDY, "html", profile, "-o", html],
                       capture_output=True, text=True)
    expect(p.returncode == 0, "tardy html: %s" % p.stderr)
    return opened(html, name + ".png")


def self_contained(path):
    text = open(path).read()
    expect(not re.search(r'<(script|img|iframe)[^>]+src=|<link[^>]+href=', text),
           "the page loads something from outside: %s" % path)


def test_console_check():
    """The check for console errors itself sees a script's error."""
    if not browser.CHROMIUM:
        raise Skip("chromium is not installed (ci/deps installs Debian's chromium)")
    d = tempfile.mkdtemp(prefix="tardy-html-")
    bad = os.path.join(d, "bad.html")
    open(bad, "w").write("<html><body><script>null.x;</script></body></html>")
    page = browser.browse(bad)
    shutil.rmtree(d, ignore_errors=True)
    expect(any("TypeError" in e for e in page.errors), "no error seen: %s" % page.errors)


def test_run_page():
    """TARDY_HTML=1 with wait states: the page beside the profile, its call sites and waits."""
    src = "examples/jacobi.c"

    @with_run([example("jacobi"), "96", "40"], 4,
              {"TARDY_WAITS": "1", "TARDY_HTML": "1"})
    def _(r):
        expect(r.rc == 0, "exit %d: %s" % (r.rc, r.err[-1000:]))
        profiles = glob.glob(os.path.join(r.dir, "tardy-*.json"))
        expect(len(profiles) == 1, "profiles: %s" % profiles)
        html = profiles[0][:-5] + ".html"
        expect(os.path.exists(html), "no %s beside the profile: %s" % (html, os.listdir(r.dir)))
        self_contained(html)
        page = opened(html, "run.png")
        dom = page.dom
        for call in ("MPI_Allreduce", "MPI_Sendrecv"):
            name = "%s @ main %s:%d" % (call, src, call_line(src, call))
            expect(any(name in row for row in rows_of(dom, "callsites")),
                   "%s not in the call-site table" % name)
        expect(len(re.findall(r'<rect class="frame"', dom)) >= 4, "no icicle frames")
        for boxes in re.findall(r'<svg class="boxes".*?</svg>', dom, re.S):
            time_axis(boxes)
        # by its label (the whole name, also where the box is too narrow for its text:
        # Open MPI's MPI_Init takes most of this short run)
        expect(re.search(r'<g class="node"[^>]*aria-label="MPI_Allreduce \(', dom),
               "the icicle does not name MPI_Allreduce")
        waits = rows_of(dom, "waits")
        expect(any("Wait at N×N" in w and "MPI_Allreduce" in w for w in waits),
               "no Wait at N×N row at MPI_Allreduce: %s" % waits)
        expect(re.search(r'<svg id="sankey".*?<path', dom, re.S), "no Sankey links")
        expect(len(re.findall(r'class="box"', dom)) >= 3, "no box plots")
        expect("slowest: rank" in dom, "no slowest rank named")
        # tardy html on the same profile gives the same page
        again = os.path.join(r.dir, "again.html")
        p = subprocess.run(["timeout", "60", TARDY, "html", profiles[0], "-o", again],
                           capture_output=True, text=True)
        expect(p.returncode == 0 and open(again).read() == open(html).read(),
               "tardy html differs from TARDY_HTML's page: %s" % p.stderr)


def test_memory_page():
    """MPI library memory by call site (bucketsort): the memory table has MPI_Init; with
    TARDY_WAITS=0 the wait-state view says they were off."""
    @with_run([example("bucketsort"), "20000", "3"], 2, {"TARDY_WAITS": "0"})
    def _(r):
        page = run_page(r, "memory")
        rows = rows_of(page.dom, "memory")
        expect(any("MPI_Init" in row and "MiB" in row for row in rows),
               "MPI_Init with MiB not in the memory table: %s" % rows[:3])
        expect('<p class="empty">Not measured in this run: wait states were off' in page.dom,
               "wait states not said to be off")


def test_two_rank_boxes():
    """At 2 ranks each box's median lies halfway between its whiskers (the two ranks' totals,
    a rank without the row at 0): the median of two is their mean. The lower rank had been
    drawn as the median, on its whisker's end."""
    @with_run([example("jacobi"), "96", "40"], 2, {"TARDY_WAITS": "0"})
    def _(r):
        dom = run_page(r, "boxes").dom
        boxes = re.findall(r'<g class="box"[^>]*>(.*?)</g>', dom, re.S)
        expect(len(boxes) >= 3, "%d box plots" % len(boxes))
        spread = 0
        for box in boxes:
            lines = [[float(v) for v in re.search(r'x1="([-\d.e]+)" x2="([-\d.e]+)"', ln).groups()]
                     for ln in re.findall(r"<line [^>]*>", box)]
            expect(len(lines) == 2, "a box without its whisker and median: %s" % box[:300])
            (lo, hi), (median, _) = lines
            spread += hi - lo > 1
            expect(abs(median - (lo + hi) / 2) < 0.01,
                   "median at x %.2f, whiskers %.2f..%.2f: %s" % (median, lo, hi,
                                                                 re.sub(r"<[^>]+>", "", box)))
        expect(spread, "no box whose two ranks differ")


def test_store_page():
    """A run store at 1..4 ranks: curves, bands, measured points, targets and the models."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for n in (1, 2, 3, 4):
            r = run.Run([example("jacobi"), "64", "30"], n,
                        {"TARDY_STORE": store, "TARDY_PROFILE": "none", "TARDY_PARAMS": "n=64"})
            expect(r.rc == 0, "exit %d at %d ranks: %s" % (r.rc, n, r.err[-800:]))
            r.cleanup()
        html = os.path.join(store, "store.html")
        p = subprocess.run(["timeout", "120", TARDY, "html", "--store", store, "--at", "p=16",
                            "-o", html], capture_output=True, text=True)
        expect(p.returncode == 0, "tardy html --store: %s" % p.stderr)
        self_contained(html)
        page = opened(html, "store.png")
        dom = page.dom
        expect(len(re.findall(r'<path class="curve"', dom)) >= 3, "fewer than 3 model curves")
        expect(len(re.findall(r'<path class="band"', dom)) >= 3, "fewer than 3 interval bands")
        expect(len(re.findall(r'<circle class="run"', dom)) >= 8, "measured points missing")
        expect(len(re.findall(r'<g class="target"', dom)) >= 3, "targets missing")
        # which compute metrics have a number depends on the runs' noise: a chart, or the
        # policy's note saying why there is none
        expect(re.search(r"<h3>per-rank compute time, [^<]* over p</h3>", dom) or
               "per-rank compute time: no prediction as the sum of its parts" in dom,
               "no compute chart, nor a note why")
        for chart in re.findall(r"<h3>[^<]*\(s\) over [^<]*</h3>.*?</svg>", dom, re.S):
            time_axis(chart.split('<g class="axis" transform="translate(')[2])
        models = rows_of(dom, "models")
        expect(any("p=16" in m for m in models), "no model at p=16: %s" % models[:2])
        expect(len(rows_of(dom, "runs")) == 4, "not 4 runs in the table")
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_store_page_two_values():
    """halo3d at 1 and 2 ranks over three block sizes: two values of p draw no curve over p;
    the chart over n shows the runs of one rank count and the model the policy fits for that
    rank count (the page and the policy had taken different runs for "the latest", and the
    chart drew one rank count's model through the other's runs)."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for ranks in (1, 2):
            for n in (16, 24, 32):
                r = run.Run([example("halo3d"), str(n), "20"], ranks, {
                    "TARDY_STORE": store, "TARDY_PROFILE": "none", "TARDY_PARAMS": "n=%d" % n})
                expect(r.rc == 0, "exit %d: %s" % (r.rc, r.err[-800:]))
                r.cleanup()
        html = os.path.join(store, "store.html")
        p = subprocess.run(["timeout", "120", TARDY, "html", "--store", store, "--at",
                            "n=48", "-o", html], capture_output=True, text=True)
        expect(p.returncode == 0, "tardy html --store: %s" % p.stderr)
        dom = opened(html, "store-two-values.png").dom
        metric = "per-rank compute time, max, fitted directly (s)"
        expect(not re.search(r"<h3>[^<]* over p</h3>", dom), "a chart over p, of two values")
        chart = re.search(r"<h3>%s over n</h3>.*?measured \(3 runs, p=(\d+)\).*?</i>model: "
                          r"([^<]*)<" % re.escape(metric), dom, re.S)
        expect(chart, "no chart of %s over n with 3 runs" % metric)
        ranks, model = chart.group(1), chart.group(2)
        p = subprocess.run(["timeout", "120", TARDY, "predict", "--store", store, "--at",
                            "n=48,p=%s" % ranks, "--json"], capture_output=True, text=True)
        want = [q["model"] for q in json.loads(p.stdout)["predictions"] if q["metric"] == metric]
        expect(want == [model], "the chart's model %r, the policy's at p=%s %s" % (
            model, ranks, want))
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_diff_page():
    """Two runs of jacobi (64 and 128 rows at 2 ranks): what changed, as bars and tables."""
    src = "examples/jacobi.c"
    d = tempfile.mkdtemp(prefix="tardy-html-diff-")
    try:
        paths = []
        for size in ("64", "128"):
            r = run.Run([example("jacobi"), size, "30"], 2)
            expect(r.rc == 0, "exit %d: %s" % (r.rc, r.err[-800:]))
            paths.append(os.path.join(d, "jacobi-%s.json" % size))
            shutil.copy(glob.glob(os.path.join(r.dir, "tardy-*.json"))[0], paths[-1])
            r.cleanup()
        p = subprocess.run(["timeout", "60", TARDY, "html"] + paths, capture_output=True,
                           text=True)
        html = os.path.join(d, "jacobi-128-diff.html")
        expect(p.returncode == 0 and os.path.exists(html), "tardy html A B: %s" % p.stderr)
        self_contained(html)
        page = opened(html, "diff.png")
        name = "MPI_Allreduce @ main %s:%d" % (src, call_line(src, "MPI_Allreduce"))
        rows = rows_of(page.dom, "diff-mpi")
        expect(any(name in row for row in rows), "%s not among the changed call sites" % name)
        expect(len(rows_of(page.dom, "diff-intervals")) >= 3, "intervals missing")
        expect(len(re.findall(r'<g class="change"', page.dom)) >= 5, "fewer than 5 change bars")
        time_axis(re.search(r'<svg id="changes".*?</svg>', page.dom, re.S).group(0), signed=True)
        expect("wall time" in page.dom, "no totals")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_extrap_page():
    """An Extra-P file of another tool (p x n, three repetitions, two call paths): its metrics
    under the file's names, charted over p and over n with their measured values, the model's
    curve, band and the target; the curves at the file's last point, where the policy
    completes a target that leaves n out; and a row per value in the table."""
    d = tempfile.mkdtemp(prefix="tardy-html-extrap-")
    try:
        points = [(p, n) for p in (2, 4, 8, 16, 32) for n in (100, 200, 400, 800)]
        text = "PARAMETER p n\nPOINTS %s\n" % " ".join("(%d %d)" % pt for pt in points)
        for region, law in (("solve", lambda p, n: 0.5 + n * n / p / 1000.0),
                            ("halo", lambda p, n: 0.02 * n ** 0.5 * (1 + 0.1 * p ** 0.5))):
            text += "REGION %s\nMETRIC time\n" % region + "".join(
                "DATA %s\n" % " ".join("%.6g" % (law(p, n) * (1 + 0.01 * r - 0.01 * (k % 3)))
                                       for r in range(3)) for k, (p, n) in enumerate(points))
        path = os.path.join(d, "other_tool.txt")
        open(path, "w").write(text)
        html = os.path.join(d, "page.html")
        p = subprocess.run(["timeout", "120", TARDY, "html", "--extrap", path, "--at", "p=64",
                            "-o", html], capture_output=True, text=True)
        expect(p.returncode == 0, "tardy html --extrap: %s" % p.stderr)
        self_contained(html)
        dom = opened(html, "extrap.png").dom
        expect("60 values of each metric from the Extra-P file %s" % path in dom,
               "header: %s" % re.findall(r"<h1>.*?</h1>", dom)[:1])
        p = subprocess.run(["timeout", "120", TARDY, "predict", "--extrap", path, "--at", "p=64",
                            "--json"], capture_output=True, text=True)
        want = {q["metric"]: q for q in json.loads(p.stdout)["predictions"]}
        expect(want["solve/time"]["target"] == "n=800,p=64", "completed at %s, not at the file's "
               "last point" % want["solve/time"]["target"])
        for metric in ("solve/time", "halo/time"):
            chart = re.search(r"<h3>%s over p</h3>.*?measured \(15 values, n=800\).*?</i>model: "
                              r"([^<]*)<.*?targets \((\d)\)" % re.escape(metric), dom, re.S)
            expect(chart, "no chart of %s over p at n=800 with 15 values" % metric)
            expect(chart.group(1) == want[metric]["model"] and chart.group(2) == "1",
                   "%s: model %r and %s targets, the policy's %r" % (
                       metric, chart.group(1), chart.group(2), want[metric]["model"]))
            expect(re.search(r"<h3>%s over n</h3>.*?measured \(12 values, p=32\)" %
                             re.escape(metric), dom, re.S), "no chart of %s over n" % metric)
        expect(len(re.findall(r'<circle class="run"', dom)) == 2 * (15 + 12),
               "not every value drawn: %d" % len(re.findall(r'<circle class="run"', dom)))
        expect(len(re.findall(r'<path class="band"', dom)) == 4, "not 4 interval bands")
        expect(len(rows_of(dom, "runs")) == 60, "not 60 values in the table")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_extrap_page_target_slice():
    """A target off the latest point (p = 4, n = 3,200 of a file whose last point is p = 16,
    n = 800): the curve over n is drawn at the target's p, which values have, through its
    values and the target; the curve over p stays at the last point's n (no value has the
    target's n). Both curves had been drawn at the last point, the target on neither."""
    d = tempfile.mkdtemp(prefix="tardy-html-slice-")
    try:
        points = [(p, n) for p in (2, 4, 8, 16) for n in (100, 200, 400, 800)]
        text = "PARAMETER p n\nPOINTS %s\nREGION solve\nMETRIC time\n" % " ".join(
            "(%d %d)" % pt for pt in points)
        text += "".join("DATA %.6g\n" % (0.5 + n * n / p / 1000.0) for p, n in points)
        path = os.path.join(d, "slice.txt")
        open(path, "w").write(text)
        html = os.path.join(d, "page.html")
        p = subprocess.run(["timeout", "120", TARDY, "html", "--extrap", path, "--at",
                            "p=4,n=3200", "-o", html], capture_output=True, text=True)
        expect(p.returncode == 0, "tardy html --extrap: %s" % p.stderr)
        dom = opened(html, "extrap-slice.png").dom
        for over, measured, targets in (("n", "4 values, p=4", 1), ("p", "4 values, n=800", 0)):
            chart = re.search(r"<h3>solve/time over %s</h3>(.*?)(<h3>|$)" % over, dom, re.S)
            expect(chart, "no chart of solve/time over %s" % over)
            drawn = len(re.findall(r'<g class="target"', chart.group(1)))
            # the legend names the targets only where the chart draws them
            legend = "targets (%d)" % targets in chart.group(1) if targets else \
                "targets (" not in chart.group(1)
            expect("measured (%s)" % measured in chart.group(1) and drawn == targets and legend,
                   "over %s: %d targets drawn, legend %s, %s" % (
                       over, drawn, re.findall(r"targets \(\d+\)", chart.group(1)),
                       re.findall(r"measured \([^)]*\)", chart.group(1))))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_extrap_page_one_series():
    """Seed 000's POISSON_MPI series, one metric: its model table counts "1 row", the values
    table "5 rows"; its values axis (up to 8 million) writes every tick alike (it had
    "8,000,000" below "10.0M")."""
    d = tempfile.mkdtemp(prefix="tardy-html-one-")
    try:
        src = os.path.abspath("bench/predict/seed000_POISSON_MPI.txt")
        html = os.path.join(d, "page.html")
        p = subprocess.run(["timeout", "120", TARDY, "html", "--extrap", src, "-o", html],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "tardy html --extrap: %s" % p.stderr)
        dom = opened(html, "one.png").dom
        counts = re.findall(r'<span class="count">([^<]*)</span>', dom)
        expect(counts == ["1 row", "5 rows"], "table counts %s" % counts)
        ticks = axis_ticks(dom.split('<g class="axis" transform="translate(')[2])
        expect(len(ticks) >= 3 and all(re.fullmatch(r"0|[0-9.]+M", t) for t in ticks),
               "values axis ticks %s" % ticks)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_extrap_page_wide_values():
    """The halo exchange's 52 metrics: the values table, a column each, is wider than the
    page; it scrolls inside its box and the page keeps its width (it had been 3,163 pixels
    wide in a 1,385-pixel window), while the models table, which fits, is not boxed."""
    d = tempfile.mkdtemp(prefix="tardy-html-wide-")
    try:
        html = os.path.join(d, "page.html")
        p = subprocess.run(["timeout", "120", TARDY, "html", "--extrap",
                            os.path.abspath("bench/predict/real_halo3d.txt"), "--at",
                            "p=2,n=128", "-o", html],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "tardy html --extrap: %s" % p.stderr)
        boxes = re.findall(r'<div class="(tablebox[^"]*)"><input[^>]*><span[^>]*>[^<]*</span>'
                           r'<table class="([^"]*)"',
                           opened(html, "extrap-wide.png").dom, re.S)
        expect(sorted(boxes) == [("tablebox", "models"), ("tablebox wide", "runs")],
               "table boxes drawn: %s" % boxes)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_extrap_page_three_parameters():
    """An Extra-P file of p x n x t whose last point is at the largest n and t: every chart's
    curve runs through its 24 points once (the curves' points go to the policy in one call and
    come back to their curves; the curve over n and the one over t share their last point)."""
    d = tempfile.mkdtemp(prefix="tardy-html-extrap3-")
    try:
        points = [(p, n, t) for p in (2, 4, 8, 16) for n in (10, 20, 40) for t in (1, 2, 4)]
        text = "PARAMETER p n t\nPOINTS %s\n" % " ".join("(%d %d %d)" % pt for pt in points)
        text += "REGION solve\nMETRIC time\n" + "".join(
            "DATA %s\n" % " ".join("%.6g" % ((1 + n * n / p / t) * (1 + 0.01 * r)) for r in range(3))
            for p, n, t in points)
        path = os.path.join(d, "three.txt")
        open(path, "w").write(text)
        html = os.path.join(d, "page.html")
        p = subprocess.run(["timeout", "120", TARDY, "html", "--extrap", path, "-o", html],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "tardy html --extrap: %s" % p.stderr)
        dom = opened(html, "extrap-three.png").dom
        for param in ("p", "n", "t"):
            chart = re.search(r"<h3>solve/time over %s</h3>(.*?)</svg>" % param, dom, re.S)
            expect(chart, "no chart of solve/time over %s" % param)
            curve = re.search(r'<path class="curve" d="([^"]*)"', chart.group(1))
            expect(curve, "no curve over %s" % param)
            vertices = len(re.findall(r"[ML]", curve.group(1)))
            expect(vertices == 24, "the curve over %s has %d points, not 24" % (param, vertices))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_bad_input():
    """Every bad input gets a message naming it, and an exit status."""
    d = tempfile.mkdtemp(prefix="tardy-html-")
    broken = os.path.join(d, "broken.json")
    open(broken, "w").write('{"schema": "tardy-profile", "version": 1, "run": ')
    for args, rc, needle in ((["html"], 2, "which profile"), (["html", "/nonexistent.json"], 1,
                             "/nonexistent.json"), (["html", broken], 1, broken),
                             (["html", "a.json", "b.json", "c.json"], 2, "one profile"),
                             (["html", "--store", d], 1, "holds no tardy profiles"),
                             (["html", broken, "--store", d], 2, "not both"),
                             (["html", "--store", d, "--extrap", broken], 2, "not both"),
                             (["html", "--extrap", "/dev/stdin"], 2, "(-o FILE)"),
                             (["html", "--extrap", broken], 1, broken + ":1:"),
                             (["html", "--extrap", broken, "--program", "x"], 2,
                              "--program goes with --store"),
                             (["html", broken, "--at", "p=4"], 2, "go with --store"),
                             (["html", "--frobnicate"], 2, "--frobnicate")):
        p = subprocess.run(["timeout", "60", TARDY] + args, capture_output=True, text=True)
        expect(p.returncode == rc and needle in p.stderr,
               "tardy %s: exit %d, stderr %r" % (" ".join(args), p.returncode, p.stderr))
    shutil.rmtree(d, ignore_errors=True)


room.case("html/the console check sees a script error", test_console_check)
room.case("html/run page with wait states (TARDY_HTML=1)", test_run_page)
room.case("html/MPI library memory page", test_memory_page)
room.case("html/2 ranks: a box's median halfway between its whiskers -n 2", test_two_rank_boxes)
room.case("html/run store page with predictions", test_store_page)
room.case("html/run store page: a parameter at two values", test_store_page_two_values)
room.case("html/diff page of two runs", test_diff_page)
room.case("html/Extra-P file page (--extrap)", test_extrap_page)
room.case("html/a target off the latest point lies on the curve through its runs",
          test_extrap_page_target_slice)
room.case("html/Extra-P file of one series: a table of one row", test_extrap_page_one_series)
room.case("html/Extra-P file of three parameters: each curve once", test_extrap_page_three_parameters)
room.case("html/Extra-P file of 52 metrics: the values table scrolls in its box",
          test_extrap_page_wide_values)
room.case("html/bad input", test_bad_input)
room.case("html/TARDY_HTML without a JSON profile", lambda: test_bad_option(
    {"TARDY_HTML": "1", "TARDY_PROFILE": "none"}, "TARDY_HTML: no HTML report: no JSON profile",
    profile=False))
