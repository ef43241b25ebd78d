#!/usr/bin/env python3
"""make bench, BENCH_ONLY=profile: the JSON profile's size per call path (issue 15). Runs
build/bench/micro callpaths (1,029 distinct call paths, 7 frames deep, 4 calls each) under
tardy at 8, 16 and 32 ranks and prints the profile's bytes, bytes per call path (the file over
its MPI call sites), its gzip size for context, and how the bytes split by top-level section;
then the whole profile of a small program (examples/jacobi, 5 call sites) at the same ranks.
The size must stay flat in the rank count: nothing in the profile is an array over ranks."""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

B = os.environ.get("B", "build")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.mpich")
LIB = os.path.abspath(os.path.join(B, "lib", "libtardy.so"))
MICRO = os.path.abspath(os.path.join(B, "bench", "micro"))
CALLS = 4096  # 4 calls per call path
SPACE = re.compile(r"\s*")


def profile_text(ranks, program=(MICRO, "callpaths", str(CALLS))):
    """The text of the profile tardy writes for program at ranks ranks."""
    work = tempfile.mkdtemp(prefix="tardy-bench-")
    e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
    e.update({"TARDY_PROFILE": work, "TARDY_SUMMARY": "none", "LD_PRELOAD": LIB})
    cmd = ["timeout", "300", MPIEXEC, "-n", str(ranks)] + list(program)
    out = subprocess.run(cmd, env=e, capture_output=True, text=True)
    files = glob.glob(os.path.join(work, "tardy-*.json"))
    if out.returncode != 0 or len(files) != 1:
        sys.exit("bench: %s failed: %s" % (" ".join(cmd), out.stderr[-500:]))
    text = open(files[0]).read()
    shutil.rmtree(work, ignore_errors=True)
    return text


def sections(text):
    """Bytes of each top-level key of the document, its separators included: [(key, bytes)]."""
    dec, starts = json.JSONDecoder(), []
    i = SPACE.match(text, text.index("{") + 1).end()
    while text[i] != "}":
        key, j = dec.raw_decode(text, i)
        j = SPACE.match(text, text.index(":", j) + 1).end()
        _value, end = dec.raw_decode(text, j)
        starts.append((key, i))
        i = SPACE.match(text, end).end()
        if text[i] == ",":
            i = SPACE.match(text, i + 1).end()
    ends = [s for _k, s in starts[1:]] + [i]
    return [(k, e - s) for (k, s), e in zip(starts, ends)]


def main():
    if not os.path.exists(MICRO):
        sys.exit("bench: %s is missing (make bench builds it)" % MICRO)
    print("JSON profile of build/bench/micro callpaths (%d calls over 1,024 call paths 7 frames "
          "deep, tardy's defaults):" % CALLS)
    for ranks in (8, 16, 32):
        text = profile_text(ranks)
        paths = len(json.loads(text)["mpi"])
        size, packed = len(text.encode()), len(gzip.compress(text.encode(), 6))
        print("  %2d ranks: %9d bytes for %d call paths: %6.0f bytes per call path (gzip -6: "
              "%d bytes, %.0f per call path)" % (ranks, size, paths, size / paths, packed,
                                                 packed / paths))
        if ranks == 8:
            split = sorted(sections(text), key=lambda kv: -kv[1])
            print("    by section: " + ", ".join(
                "%s %d (%.0f per call path)" % (k, n, n / paths) for k, n in split if n >= 100)
                + "; the rest %d" % sum(n for _k, n in split if n < 100))
    jacobi = (os.path.abspath(os.path.join(B, "examples", "jacobi")), "256", "20")
    print("  examples/jacobi 256 20, 5 call sites: " + ", ".join(
        "%d bytes at %d ranks" % (len(profile_text(r, jacobi).encode()), r) for r in (8, 16, 32)))


if __name__ == "__main__":
    main()
