"""Opening a page in headless Chromium (Debian's `chromium`) as a person would: the DOM after
the scripts ran, the console's errors, a screenshot. Used by the html room
(tests/cases/html.py) and make bench's HTML row (bench/html_bench.py)."""
import re
import shutil
import subprocess
import time

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Chromium's stderr line for a console message, e.g.
# [..:INFO:CONSOLE:12] "Uncaught TypeError: ...", source: file:///x.html (12)
# (older versions: CONSOLE(12)). It logs console.error at level INFO like console.log, and
# tardy's pages write nothing to the console: every message counts as an error.
CONSOLE = re.compile(r':CONSOLE(?:\(\d+\)|:\d+)\] "(.*)", source: (.*)$')


class Page:
    """A page as Chromium drew it: dom (HTML text), errors (console lines), seconds (wall
    time of the browser's whole run), drawn_ms (the page's own mark, or None)."""

    def __init__(self, dom, errors, seconds):
        self.dom, self.errors, self.seconds = dom, errors, seconds
        m = re.search(r'data-drawn-ms="(\d+)"', dom)
        self.drawn_ms = int(m.group(1)) if m else None
        self.ready = 'data-ready="1"' in dom


def browse(path, screenshot=None, size=(1280, 2400), timeout=120):
    """Open the file path in headless Chromium; screenshot: a PNG file to write. Raises
    RuntimeError when Chromium is absent, fails or times out."""
    if not CHROMIUM:
        raise RuntimeError("chromium is not installed (ci/deps installs Debian's chromium)")
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--enable-logging=stderr", "--v=0", "--window-size=%d,%d" % size, "--dump-dom"]
    if screenshot:
        cmd.append("--screenshot=" + screenshot)
    start = time.time()
    try:
        p = subprocess.run(["timeout", str(timeout)] + cmd + ["file://" + path],
                           capture_output=True, text=True)
    except OSError as ex:
        raise RuntimeError("cannot start chromium: %s" % ex)
    if p.returncode != 0:
        raise RuntimeError("chromium exit %d: %s" % (p.returncode, p.stderr[-1500:]))
    errors = [m.group(1) + " at " + m.group(2)
              for m in map(CONSOLE.search, p.stderr.splitlines()) if m]
    return Page(p.stdout, errors, time.time() - start)
