#!/usr/bin/env python3
"""Write a synthetic profile with CALLPATHS call paths for the HTML report's benchmark: the
metadata, ranks and MPI_T of a real profile (TEMPLATE), one MPI row per call path (a tree of
application frames up to 8 deep, as a large code's call paths are), an interval between each
pair of consecutive rows, and a wait row with a cause for every 50th row.
RANKS (default: the template's) sets the run's size: the rows' histograms keep the same bins.
Usage: synth_callpaths.py TEMPLATE.json OUT.json CALLPATHS [RANKS]"""
import json
import random
import sys

FUNCTIONS = ("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce",
             "MPI_Bcast", "MPI_Alltoall")


def stat(per_rank, ranks, rng):
    """[sum, min, min_rank, max, max_rank, ranks] (docs/profile-schema.md)."""
    lo, hi = per_rank * rng.uniform(0.5, 1), per_rank * rng.uniform(1, 2)
    return [per_rank * ranks, lo, rng.randrange(ranks), hi, rng.randrange(ranks), ranks]


def histogram(per_rank, ranks):
    """Per-rank totals around per_rank, in the profile's log2 nanosecond bins."""
    b = max(1, min(39, int(per_rank * 1e9).bit_length()))
    return [[b - 1, ranks // 4, per_rank * 0.7 * (ranks // 4)],
            [b, ranks - ranks // 4, per_rank * (ranks - ranks // 4)]]


def row_of(function, callpath, t, ranks, rng):
    return {"function": function, "callpath": callpath,
            "count": stat(rng.randint(1, 1000), ranks, rng), "time": stat(t, ranks, rng),
            "sent": stat(rng.randint(0, 1 << 20), ranks, rng),
            "recv": stat(rng.randint(0, 1 << 20), ranks, rng),
            "call_min": t / 1000, "call_max": t / 10,
            "histogram": histogram(t / 100, ranks * 100), "ranks_histogram": histogram(t, ranks)}


def main():
    template, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    prof = json.load(open(template))
    if len(sys.argv) > 4:
        prof["run"]["ranks"] = int(sys.argv[4])
    ranks = prof["run"]["ranks"]
    rng = random.Random(1)
    paths, rows, table = [], [], {}  # table: (function, file, line) -> frame id
    files = ["src/part%d.c" % k for k in range(5)] + ["src/main.c"]
    for i in range(n):
        depth = rng.randint(2, 8)
        # frames innermost first; the outer ones shared (a tree), the inner ones varied
        frames = [("solver_%d" % (i % 97 if d < 2 else rng.randrange(40)), d % 5,
                   10 + (i * 7 + d) % 900) for d in range(depth)]
        frames[-1] = ("main", 5, 20 + i % 13)
        paths.append([table.setdefault(f, len(table)) for f in frames])
        rows.append(row_of(FUNCTIONS[i % len(FUNCTIONS)], i, rng.lognormvariate(-6, 2), ranks,
                           rng))
    site = lambda r: {"function": r["function"], "callpath": r["callpath"]}
    intervals = []
    for a, b in zip(rows, rows[1:]):
        r = row_of("", 0, rng.lognormvariate(-7, 2), ranks, rng)
        r.update({"from": site(a), "to": site(b)})
        for k in ("function", "callpath", "sent", "recv"):
            del r[k]
        r["sumsq"] = r["time"][0] ** 2
        intervals.append(r)
    waits, causes = [], []
    for r in rows[::50]:
        w = row_of(r["function"], r["callpath"], r["time"][0] / ranks / 3, ranks, rng)
        w.update({"pattern": "late_sender", "late": w["time"]})
        for k in ("sent", "recv", "call_min"):
            del w[k]
        waits.append(w)
        causes.append({"pattern": "late_sender", "site": site(r),
                       "region": {"from": intervals[r["callpath"] - 1]["from"] if r["callpath"] else site(r),
                                  "to": site(r)},
                       "cost": w["time"], "count": w["count"]})
    prof.update({"mpi": rows, "intervals": intervals, "files": files,
                 "frames": [list(f) for f in table], "callpaths": paths, "waits": waits,
                 "wait_causes": causes})
    json.dump(prof, open(out, "w"), indent=1)


main()
