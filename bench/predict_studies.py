#!/usr/bin/env python3
"""A case of the corpus is one study, one draw of the noise: a real case's split is won or
lost on ten series of microseconds, a kernel grid's on 42 values whose median moves by half a
point from one draw to the next. This makes N fresh studies of a case (bench/predict_corpus.py's;
jacobi_sizes unless named) in a temporary directory and runs bench/predict_bench.py on them:
tardy and Extra-P per study and over all of them. A real case is measured again on this
machine; a kernel grid (kernels_pn, kernels_grid4) is drawn again with random seeds (printed),
each split over its N studies.
Usage: predict_studies.py [N [CASE]] (N 8). A real case needs the build and mpiexec; figures,
not a test."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

import predict_corpus

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = [sys.executable, os.path.join(HERE, "predict_bench.py")]


def real_studies(n, case, work):
    files = []
    for i in range(n):
        out = os.path.join(work, str(i))
        os.makedirs(out)
        predict_corpus.real([case], out)
        files.append(os.path.join(work, "%s_study%d.txt" % (case, i + 1)))
        os.rename(os.path.join(out, "real_%s.txt" % case), files[-1])
    sys.stdout.flush()
    subprocess.run(BENCH + files, check=True)


def grid_studies(n, case, work):
    _, ps, ns, reps = predict_corpus.GRIDS[case]
    seeds = random.SystemRandom().sample(range(10 ** 6), n)  # distinct: a file each
    print("%s: %d fresh draws of the noise, seeds %s" % (case, n, " ".join(map(str, seeds))))
    for seed in seeds:
        predict_corpus.kernel_grid("%s_s%d" % (case, seed), seed, ps, ns, reps, work)
    for split in ("p", "corner", "corner_below"):
        sys.stdout.flush()
        subprocess.run(BENCH + [os.path.join(work, "%s_s%d_%s.txt" % (case, seed, split))
                                for seed in seeds], check=True)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    case = sys.argv[2] if len(sys.argv) > 2 else "jacobi_sizes"
    if case not in predict_corpus.REAL and case not in predict_corpus.GRIDS:
        raise SystemExit("predict_studies.py: no case %s (known: %s)" % (
            case, ", ".join(list(predict_corpus.REAL) + list(predict_corpus.GRIDS))))
    work = tempfile.mkdtemp(prefix="tardy-studies-")
    try:
        (real_studies if case in predict_corpus.REAL else grid_studies)(n, case, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
