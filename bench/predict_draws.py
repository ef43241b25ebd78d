#!/usr/bin/env python3
"""The interval over many draws of the noise (part of `make bench-predict`): ten laws of p and
four of p and n, runs with 3 repetitions (and with one run per scale, as a store of single
runs has them) of 3% or 10% log-normal noise, eight draws each, the law predicted 2x, 4x and
8x beyond the largest run (p = 1..16 and 1..32; the grid p = 1..16 x n = 16..256 at 2x and 4x
in both). Prints per setting how many actual values lie inside tardy's 80% interval, its
median width and the median error. The draws are fixed (seeded) but nothing in tardy was
fitted on them: the corpus's cases hold three draws each, too few to see whether an interval
holds 80% of the time. Arguments: none. Figures, not a test."""
import math
import os
import random
import statistics
import tempfile

import predict_bench as pb

LAWS_P = (lambda p: 21.0, lambda p: 1 + 0.16 * p * math.log2(p), lambda p: 2 + 0.256 * p,
          lambda p: 3 + 0.5 * math.log2(p), lambda p: 1 + 0.16 * p,
          lambda p: 2 + 0.032 * p * math.log2(16 * p), lambda p: 1 + math.sqrt(p),
          lambda p: 1 + 0.3 * math.log2(p) ** 2, lambda p: 10 + 0.2 * p ** 1.5,
          lambda p: 1 + 20.0 / p)
LAWS_PN = (lambda p, n: 1 + n / p, lambda p, n: 1 + 0.01 * n * math.log2(p),
           lambda p, n: 1 + 0.5 * p + 0.01 * n, lambda p, n: 2 + 0.001 * n * n / p)
DRAWS = 8


def data(rnd, value, noise, reps):
    return "DATA %s\n" % " ".join("%r" % (value * math.exp(rnd.gauss(0, noise))) for _ in range(reps))


def score(doc, truth, cell):
    """Add each prediction of doc to its cell: [inside, count, widths, errors]."""
    for q in doc["predictions"]:
        want = truth[(q["target"], q["metric"])]
        c = cell.setdefault(want[1], [0, 0, [], []])
        c[0] += q["low"] <= want[0] <= q["high"]
        c[1] += 1
        c[2].append((q["high"] - q["low"]) / q["value"])
        c[3].append(abs(q["value"] - want[0]) / want[0])


def one_parameter(work, noise, reps, top, cell, seed):
    ps = [p for p in (1, 2, 4, 8, 16, 32) if p <= top]
    text, truth = "PARAMETER p\nPOINTS %s\n" % " ".join(map(str, ps)), {}
    rnd = random.Random(seed)
    for i, law in enumerate(LAWS_P):
        for d in range(DRAWS):
            region = "law%d_draw%d" % (i, d)
            text += "REGION %s\nMETRIC time\n" % region + "".join(data(rnd, law(p), noise, reps)
                                                                  for p in ps)
            for k in (2, 4, 8):
                truth[("p=%d" % (top * k), region + "/time")] = \
                    (law(top * k), "%d run%s, p, %2d%% noise, %dx" % (reps, "s"[:reps > 1],
                                                                      100 * noise, k))
    path = os.path.join(work, "p.txt")
    open(path, "w").write(text)
    score(pb.tardy_predict(path, ";".join("p=%d" % (top * k) for k in (2, 4, 8))), truth, cell)


def two_parameters(work, noise, reps, cell, seed):
    pts = [(p, n) for p in (1, 2, 4, 8, 16) for n in (16, 32, 64, 128, 256)]
    text = "PARAMETER p n\nPOINTS %s\n" % " ".join("(%d %d)" % pt for pt in pts)
    truth, rnd = {}, random.Random(seed)
    for i, law in enumerate(LAWS_PN):
        for d in range(DRAWS):
            region = "law%d_draw%d" % (i, d)
            text += "REGION %s\nMETRIC time\n" % region + "".join(data(rnd, law(p, n), noise, reps)
                                                                  for p, n in pts)
            for k in (2, 4):
                truth[("n=%d,p=%d" % (256 * k, 16 * k), region + "/time")] = \
                    (law(16 * k, 256 * k), "%d run%s, p, n, %2d%% noise, %dx" % (
                        reps, "s"[:reps > 1], 100 * noise, k))
    path = os.path.join(work, "pn.txt")
    open(path, "w").write(text)
    score(pb.tardy_predict(path, ";".join("p=%d,n=%d" % (16 * k, 256 * k) for k in (2, 4))),
          truth, cell)


def main():
    cell = {}
    with tempfile.TemporaryDirectory(prefix="tardy-bench-draws-") as work:
        for reps in (3, 1):
            for noise in (0.03, 0.10):
                for top in (16, 32):
                    one_parameter(work, noise, reps, top, cell, seed=int(1000 * noise) + top)
                two_parameters(work, noise, reps, cell, seed=int(1000 * noise))
    print("the 80%% interval over %d draws of the noise per law (%d laws of p, %d of p and n), "
          "predicted beyond the runs:" % (DRAWS, len(LAWS_P), len(LAWS_PN)))
    total = [0, 0, [], []]
    for key in sorted(cell, key=lambda k: (-int(k.split()[0]), k)):
        c = cell[key]
        total = [total[0] + c[0], total[1] + c[1], total[2] + c[2], total[3] + c[3]]
        print("  %-29s %4d/%-4d inside (%3.0f%%), median width %6.1f%%, median error %5.1f%%" %
              (key, c[0], c[1], 100.0 * c[0] / c[1], 100 * statistics.median(c[2]),
               100 * statistics.median(c[3])))
    print("  %-29s %4d/%-4d inside (%3.0f%%), median width %6.1f%%, median error %5.1f%%" %
          ("all", total[0], total[1], 100.0 * total[0] / total[1],
           100 * statistics.median(total[2]), 100 * statistics.median(total[3])))


if __name__ == "__main__":
    main()
