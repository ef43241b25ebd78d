#!/usr/bin/env python3
"""Write a synthetic run store for the prediction benchmark: RUNS profiles of one program, each
with INTERVALS compute intervals whose mean time per rank follows one of a few scaling laws
(with 3% noise), made from a real profile of the same program (its MPI rows and metadata), so
the store matches that program; with CALLPATHS, as many MPI call paths of their own (the MPI
time is predicted as the sum of every call path's model); with REPS, a study run scale by
scale: REPS runs at p = 1, then REPS at 2, 4, ... (else p = 1, 2, 4, ..., 32, then 2, 4, ...,
64, ...). Usage: synth_store.py TEMPLATE.json DIR RUNS INTERVALS [CALLPATHS [REPS]]"""
import copy
import json
import math
import os
import random
import sys

LAWS = (lambda p: 2.0 + 300.0 / p, lambda p: 0.5 + 0.01 * p * math.log2(p),
        lambda p: 40.0 / p + 0.2 * p, lambda p: 3.0 + 0.0 * p)


def stat(per_rank, ranks):
    """[sum, min, min_rank, max, max_rank, ranks] (docs/profile-schema.md)."""
    return [per_rank * ranks, per_rank * 0.9, 0, per_rank * 1.1, ranks - 1, ranks]


def main():
    template, out, runs, intervals = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    callpaths = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    reps = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    base = json.load(open(template))
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1)
    for r in range(runs):
        p = 2 ** (r // reps) if reps else 2 ** (r % 6) * (1 + r // 6)
        prof = copy.deepcopy(base)
        prof["run"]["ranks"] = p
        prof["run"]["params"] = {}
        prof["run"]["start_time"] = "2026-01-01T00:00:%02d" % r
        paths, frames, files = prof["callpaths"], prof["frames"], prof["files"]
        first = len(paths)
        files.append("synth.c")
        for i in range(intervals + 1):
            frames.append(["step%d" % i, len(files) - 1, 10 + i])
            paths.append([len(frames) - 1])
        rows, total = [], 0.0
        for i in range(intervals):
            t = LAWS[i % len(LAWS)](p) * (1 + 0.03 * (2 * rng.random() - 1)) * 1e-3
            total += t
            rows.append({"from": {"function": "MPI_Send", "callpath": first + i},
                         "to": {"function": "MPI_Recv", "callpath": first + i + 1},
                         "count": stat(10.0, p), "time": stat(t, p), "sumsq": 0.0,
                         "call_min": 0.0, "call_max": t, "histogram": [], "ranks_histogram": []})
        prof["intervals"] = rows
        mpi = 0.0
        for i in range(callpaths):  # on the intervals' call paths, one MPI_Send each
            t = LAWS[i % len(LAWS)](p) * (1 + 0.03 * (2 * rng.random() - 1)) * 1e-4
            mpi += t
            prof["mpi"].append({"function": "MPI_Send", "callpath": first + i,
                                "count": stat(10.0, p), "time": stat(t, p), "call_min": 0.0,
                                "call_max": t})
        if callpaths:
            prof["ranks"]["mpi"] = stat(mpi, p)
        prof["ranks"]["compute"] = stat(total, p)
        prof["ranks"]["compute_histogram"] = {"lo": total * 0.9, "hi": total * 1.1,
                                              "counts": [p if b == 10 else 0 for b in range(20)]}
        prof["ranks"]["wall"] = stat(total * 2 + 100, p)
        with open(os.path.join(out, "tardy-synth-%02d.json" % r), "w") as f:
            json.dump(prof, f)


if __name__ == "__main__":
    main()
