#!/usr/bin/env python3
"""The numbers a user reads first are the time per rank: compute, MPI and wall, their mean
and their maximum over the ranks. The default policy predicts each as a sum of many models
(the intervals, the call paths) with one interval; the corpus (bench/predict_bench.py) holds
the series one by one and never checks a sum. This does, on real runs: N fresh studies of
each real case of bench/predict_corpus.py (its programs, sizes and rank counts, 3 repetitions),
the largest size held out. tardy predicts from tardy's own Extra-P export of the smaller sizes
(as from the store); Extra-P 4.2.5 fits each total directly on the same split, where it is
there. Prints per case and metric the median error at the held-out size, how many values are
within 10%, and how many lie inside tardy's 80% interval.
Usage: predict_sums.py [N [CASE...]] (N 1; cases jacobi, bucketsort, halo3d). Needs the build
and mpiexec; figures, not a test."""
import os
import shutil
import statistics
import sys
import tempfile

import predict_bench as pb
import predict_corpus

# tardy's name of each total, and its row and statistic in tardy's Extra-P export
SUMS = [("per-rank compute time, %s (s)", "ranks/compute"),
        ("MPI time per rank, %s (s)", "ranks/mpi"),
        ("wall time per rank, %s (s)", "ranks/wall")]


def totals_file(path, params, points, series, keep):
    """The totals alone, renamed as another tool's (Extra-P fits each directly)."""
    totals = {(region.replace("/", "_"), stat): rows for (region, stat), rows in series.items()
              if region in [r for _, r in SUMS] and stat in ("mean", "max")}
    pb.write_train(path, params, points, totals, keep)


def study(case, work, use_extrap):
    """One fresh study of case: [(metric, target, actual, tardy's prediction or None, Extra-P's
    value or None)]."""
    export = predict_corpus.measure(case, os.path.join(work, "store"))
    params, points, series, _ = pb.parse(export)
    d = params.index("n")
    top = max(pt[d] for pt in points)
    keep = [pt[d] < top for pt in points]
    test = [i for i, pt in enumerate(points) if not keep[i]]
    train = os.path.join(work, "train.txt")
    pb.write_train(train, params, points, series, keep)
    targets = ";".join(pb.target_key(params, points[i]) for i in test)
    got = {(q["target"], q["metric"]): q for q in pb.tardy_predict(train, targets)["predictions"]}
    ex = {}
    if use_extrap:
        small = os.path.join(work, "totals.txt")
        totals_file(small, params, points, series, keep)
        ex = pb.extrap_predict(small, [points[i] for i in test])
    out = []
    for name, region in SUMS:
        for stat in ("mean", "max"):
            rows = series.get((region, stat))
            for j, i in enumerate(test if rows else []):
                tk = pb.target_key(params, points[i])
                v = ex.get("%s/%s" % (region.replace("/", "_"), stat))
                out.append((name % stat, tk, statistics.median(rows[i]),
                            got.get((tk, name % stat)), v[j] if v else None))
    return out


def main():
    cases = sys.argv[2:] or ["jacobi", "bucketsort", "halo3d"]
    if sys.argv[1:2] and not sys.argv[1].isdigit() or \
            any(c not in predict_corpus.REAL for c in cases):
        raise SystemExit(__doc__)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    why = pb.extrap_available()
    if why:
        print("Extra-P: %s; its column is left out" % why)
    print("the time per rank at the held-out largest size: tardy's sums of models against the "
          "measured totals (median of 3 runs)")
    print("%-12s %-36s %6s %16s %10s %16s" % ("case", "metric", "values", "tardy", "in 80%",
                                               "Extra-P" if not why else ""))
    everything = []
    for case in cases:
        rows = []
        for _ in range(n):
            work = tempfile.mkdtemp(prefix="tardy-sums-")
            try:
                rows += study(case, work, not why)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        everything += rows
        for metric in sorted({r[0] for r in rows}, key=[r[0] for r in rows].index):
            report(case, metric, [r for r in rows if r[0] == metric], not why)
    report("all", "", everything, not why)


def report(case, metric, rows, use_extrap):
    errs, inside, ex, missing = [], 0, [], 0
    for _, _, actual, q, v in rows:
        if q is None:
            missing += 1
            continue
        errs.append(abs(q["value"] - actual) / actual)
        inside += q["low"] <= actual <= q["high"]
        if v is not None:
            ex.append(abs(v - actual) / actual)

    def cell(e):
        return "%6.1f%% (%2d/%2d)" % (100 * statistics.median(e), sum(x <= 0.1 for x in e),
                                      len(e)) if e else "%16s" % "-"
    print("%-12s %-36s %6d %s %4d/%-4d %s%s" % (
        case, metric, len(rows), cell(errs), inside, len(errs), cell(ex) if use_extrap else "",
        "  %d without a number" % missing if missing else ""))


if __name__ == "__main__":
    main()
