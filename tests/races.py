#!/usr/bin/env python3
"""Count helgrind's data-race reports whose innermost frame is tardy's own code.

usage: races.py LOG...   Prints each such report and a last line "N races in tardy code".
MPICH and UCX report many races of their own (lock-free progress engines, not instrumented
for helgrind); those are not ours to judge, so only reports that start in tardy count."""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# helgrind names a frame with debug information by its file's base name: every source of the
# library (the rooms under tool/ and mpit/, and what the spec generates).
SOURCES = sorted({os.path.basename(p) for d in ("tool", "mpit")
                  for p in glob.glob(os.path.join(TOP, d, "**", "*.[ch]"), recursive=True)} |
                 {"wrappers_c.c", "wrappers_f.c", "wrappers_q.c", "fn_table.c", "own_calls.h",
                  "ws_patterns.c"})
OURS = re.compile(r"\((?:%s):\d|libtardy\.so" % "|".join(re.escape(s) for s in SOURCES))

def main():
    found = 0
    for path in sys.argv[1:]:
        text = open(path, errors="replace").read()
        for block in re.split(r"\n==\d+== -{10,}\n", text):
            if "data race" not in block:
                continue
            top = re.search(r"^==\d+==\s+at 0x[0-9A-Fa-f]+: .*$", block, re.M)
            if top and OURS.search(top.group(0)):
                found += 1
                print(block[:3000])
    print("%d races in tardy code" % found)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
