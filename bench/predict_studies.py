#!/usr/bin/env python3
"""A real case of the corpus is one study, one draw of this machine's noise: its split is won
or lost on ten series of microseconds. This makes N fresh studies of a real case
(bench/predict_corpus.py's, jacobi_sizes unless named) in a temporary directory and runs
bench/predict_bench.py on them: tardy and Extra-P per study and over all of them.
Usage: predict_studies.py [N [CASE]] (N 8). Needs the build and mpiexec; figures, not a test."""
import os
import shutil
import subprocess
import sys
import tempfile

import predict_corpus

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    case = sys.argv[2] if len(sys.argv) > 2 else "jacobi_sizes"
    if case not in predict_corpus.REAL:
        raise SystemExit("predict_studies.py: no real case %s (known: %s)" %
                         (case, ", ".join(predict_corpus.REAL)))
    work = tempfile.mkdtemp(prefix="tardy-studies-")
    try:
        files = []
        for i in range(n):
            out = os.path.join(work, str(i))
            os.makedirs(out)
            predict_corpus.real([case], out)
            files.append(os.path.join(work, "%s_study%d.txt" % (case, i + 1)))
            os.rename(os.path.join(out, "real_%s.txt" % case), files[-1])
        sys.stdout.flush()
        subprocess.run([sys.executable, os.path.join(HERE, "predict_bench.py")] + files,
                       check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
