"""Cases of issue 13 (predictions a user can trust), appended to tests/run.py's CASES: the
help of `tardy predict`, its JSON document, intervals, repetitions of Extra-P input, the
scalaextrap policy on Extra-P input and the notes that apply to it."""
import json
import os
import subprocess
import tempfile

B = os.environ.get("B", "build")
TARDY = os.path.abspath(os.path.join(B, "bin", "tardy"))


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def tardy(args):
    return subprocess.run(["timeout", "120", TARDY] + args, capture_output=True, text=True)


def extrap_file(text):
    fd, path = tempfile.mkstemp(suffix=".txt", prefix="extrap-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def test_help():
    for args in (["predict", "--help"], ["help", "predict"], ["predict", "-h"]):
        p = tardy(args)
        expect(p.returncode == 0 and p.stdout.startswith("usage: tardy predict") and
               "--extrap" in p.stdout and "80%" in p.stdout, "%s: %s %s" % (args, p.stdout, p.stderr))
    p = tardy(["help"])
    expect("help [options|predict]" in p.stdout, p.stdout)
    p = tardy(["predict", "--at", "p=4"])
    expect(p.returncode == 2 and "usage: tardy predict" in p.stderr, p.stderr)


# Amdahl's law with 3 repetitions per point, one of them 10x slow: the median ignores it
AMDAHL = "".join("DATA %r %r %r\n" % (2 + 64.0 / p, 10 * (2 + 64.0 / p), 1.01 * (2 + 64.0 / p))
                 for p in (2, 4, 8, 16, 32))
LONG = "region_" + "x" * 120


def test_json_document():
    path = extrap_file("PARAMETER p\nPOINTS 2 4 8 16 32\nREGION solve\nMETRIC time\n" + AMDAHL +
                       "REGION %s\nMETRIC time\n" % LONG + AMDAHL)
    try:
        p = tardy(["predict", "--extrap", path, "--at", "p=128", "--json"])
        expect(p.returncode == 0, p.stderr)
        doc = json.loads(p.stdout)
        expect(doc["schema"] == "tardy-predictions" and doc["version"] == 1 and
               doc["source"] == {"extrap": path, "runs": 5, "program": path} and
               doc["policy"] == "default" and doc["targets"] == "p=128", "document: %s" % doc)
        expect("run" not in doc and "mpi" not in doc, "a whole profile: %s" % list(doc))
        # no note about per-rank compute time, which Extra-P input of another tool lacks
        expect("note" not in doc, "note: %s" % doc.get("note"))
        q = {x["metric"]: x for x in doc["predictions"]}["solve/time, max per rank"]
        want = 1.01 * (2 + 64.0 / 128)  # the median repetition (the mean would be 4x larger)
        expect(abs(q["value"] - want) <= 1e-6 * want, "median of repetitions: %s" % q)
        expect(q["coverage"] == 80 and q["low"] <= q["value"] <= q["high"], "interval: %s" % q)
        p = tardy(["predict", "--extrap", path, "--at", "p=128"])
        expect(p.returncode == 0 and LONG + "/time, max per rank" in p.stdout and
               "(80%)" in p.stdout, "summary: %s" % p.stdout)
    finally:
        os.unlink(path)


def test_scalaextrap_extrap():
    path = extrap_file("PARAMETER p\nPOINTS 64 128 256 512\nREGION poisson\nMETRIC time\n"
                       "DATA 7938954\nDATA 4676880\nDATA 2818114\nDATA 2040480\n")
    try:
        p = tardy(["predict", "--extrap", path, "--at", "p=1024", "--policy", "scalaextrap",
                   "--json"])
        expect(p.returncode == 0, p.stderr)
        q = json.loads(p.stdout)["predictions"]
        expect(len(q) == 1 and abs(q[0]["value"] - 1606645.3) <= 1, "seed 000 POISSON_MPI: %s" % q)
    finally:
        os.unlink(path)


def test_no_number():
    """A trend that reverses: the runs rise, then fall steeply; no number is printed where
    the models that fit disagree wildly or fall below zero, and the note says why."""
    path = extrap_file("PARAMETER p\nPOINTS 2 4 8 16 32\nREGION r\nMETRIC time\n"
                       "DATA 10\nDATA 30\nDATA 40\nDATA 20\nDATA 2\n")
    try:
        p = tardy(["predict", "--extrap", path, "--at", "p=4096", "--json"])
        expect(p.returncode == 0, p.stderr)
        doc = json.loads(p.stdout)
        expect(not doc["predictions"] and "no prediction at p=4096" in doc.get("note", ""),
               "reversing trend: %s" % doc)
    finally:
        os.unlink(path)


CASES = [
    ("cli/tardy predict --help, tardy help predict", test_help),
    ("cli/tardy predict --json: a predictions document with intervals", test_json_document),
    ("lua/scalaextrap policy on Extra-P input", test_scalaextrap_extrap),
    ("lua/no number where the runs cannot support one", test_no_number),
]
