#!/usr/bin/env python3
"""`make bench-predict`, inside the range: each value of a parameter between its smallest and
largest held out in turn and predicted from all the others (the largest included), for each
measurement set of bench/predict/ once (the splits of one set share its values), with tardy's
default policy and with Extra-P 4.2.5's default modeler on the same split (bench/predict_bench.py
says when its column is left out). Per set: the values tardy gives a number for, the median
error (within 10%) of both, how many lie inside tardy's 80% interval and its median width, and
how many tardy gives no number for. A user's runs rarely need a prediction between them, but
the curve and band that `tardy html` draws through them are these predictions. Arguments:
corpus files instead of all of bench/predict/. Figures, not a test."""
import glob
import os
import shutil
import statistics
import sys
import tempfile

import predict_bench as pb

HERE = os.path.dirname(os.path.abspath(__file__))


def interior_case(path, work, use_extrap):
    """Errors (tardy, Extra-P on the same values), inside count, widths and the values without
    a number, over every interior value of the file's held-out parameter (the first of a
    corner's)."""
    params, points, series, holdout = pb.parse(path)
    d = params.index(holdout) if holdout in params else 0
    tardy, extrap, widths, inside, missing = [], [], [], 0, 0
    for held in sorted(set(pt[d] for pt in points))[1:-1]:
        keep = [pt[d] != held for pt in points]
        test = [i for i, pt in enumerate(points) if not keep[i]]
        train = os.path.join(work, os.path.basename(path))
        pb.write_train(train, params, points, series, keep)
        doc = pb.tardy_predict(train, ";".join(pb.target_key(params, points[i]) for i in test))
        got = {(q["target"], q["metric"]): q for q in doc["predictions"]}
        ex = pb.extrap_predict(train, [points[i] for i in test]) if use_extrap else {}
        for (region, metric), rows in series.items():
            name = "%s/%s" % (region, metric)
            for j, i in enumerate(test):
                actual = statistics.median(rows[i])
                if actual == 0:
                    continue
                q = got.get((pb.target_key(params, points[i]), name))
                if q is None:
                    missing += 1
                    continue
                tardy.append(abs(q["value"] - actual) / abs(actual))
                if "low" in q:
                    inside += q["low"] <= actual <= q["high"]
                    widths.append((q["high"] - q["low"]) / abs(q["value"]) if q["value"] else 0)
                if name in ex:
                    extrap.append(abs(ex[name][j] - actual) / abs(actual))
    return tardy, extrap, widths, inside, missing


def cell(errors):
    if not errors:
        return "%17s" % "-"
    return "%8s (%4d/%4d)" % (pb.pct(pb.median(errors)).strip(),
                              sum(e <= 0.10 for e in errors), len(errors))


def main():
    why = pb.extrap_available()
    use_extrap = why is None
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "predict", "*.txt")))
    sets, seen = [], set()
    for path in files:
        params, points, series, _ = pb.parse(path)
        key = repr((params, points, sorted(series.items())))
        if key not in seen:
            seen.add(key)
            sets.append(path)
    print("prediction of each interior value from all others: median error (within 10%)")
    if not use_extrap:
        print("Extra-P: %s; its column is left out" % why)
    print("%-26s %17s %17s %11s %8s %10s" % ("set", "tardy default",
                                             "Extra-P 4.2.5" if use_extrap else "", "in 80%",
                                             "width", "no number"))
    work = tempfile.mkdtemp(prefix="tardy-bench-interior-")
    total = ([], [], [], 0, 0)
    try:
        for path in sets:
            t, x, w, inside, missing = interior_case(path, work, use_extrap)
            print("%-26s %s %s %5d/%-5d %7s %10d" % (
                os.path.basename(path)[:-4][:26], cell(t), cell(x) if use_extrap else "",
                inside, len(w), pb.pct(pb.median(w)).strip(), missing))
            total = (total[0] + t, total[1] + x, total[2] + w, total[3] + inside,
                     total[4] + missing)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    t, x, w, inside, missing = total
    print("%-26s %s %s %5d/%-5d %7s %10d" % ("all", cell(t), cell(x) if use_extrap else "",
                                             inside, len(w), pb.pct(pb.median(w)).strip(),
                                             missing))
    print("interval coverage inside the range: %.1f%% of %d values inside the stated 80%% "
          "interval; median width %.1f%%" % (100.0 * inside / max(len(w), 1), len(w),
                                            100 * pb.median(w)))


if __name__ == "__main__":
    main()
