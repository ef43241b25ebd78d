#!/usr/bin/env python3
"""Count helgrind's data-race reports whose innermost frame is tardy's own code.

usage: races.py LOG...   Prints each such report and a last line "N races in tardy code".
MPICH and UCX report many races of their own (lock-free progress engines, not instrumented
for helgrind); those are not ours to judge, so only reports that start in tardy count."""
import re
import sys

OURS = re.compile(r"\((?:tool|mpit|wrappers_c|wrappers_f|fn_table)[/.]|"
                  r"\((?:event|callpath|tables|memory|peer|histogram|runtime|collect|reduce|"
                  r"bytes|init_finalize|fortran|strbuf)\.[ch]:|libtardy\.so")


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
