#!/usr/bin/env python3
"""Build the corpus of `make bench-predict` in bench/predict/ (kept in the repo; rerun only to
renew it): Extra-P text files, each with a line "# holdout NAME" naming the parameter whose
largest value the benchmark holds out and predicts from the smaller ones ("corner": the one
point where every parameter is largest, from all the others).
  seed000_*.txt     seed 000's three series (docs/design.md 3.2)
  synth_p.txt       scaling laws of p with multiplicative noise, 3 repetitions per point
  synth_p4.txt      the same laws in a short study: p = 8..64, 5% noise, three draws
  synth_pn.txt      laws of p and n, the largest p row held out
  synth_pn_corner.txt  the same, the corner (largest p, largest n) held out
  synth_weak.txt    the same laws along n = 16·p (weak scaling: p and n change together)
  synth_strong.txt  strong scaling: work / p plus an overhead growing with p (log2 p, p^(1/2),
                    p, p·log2 p)
  synth_cross.txt   the laws of p and n measured one parameter at a time (a cross), the
                    corner held out
  synth_turn.txt    strong scaling whose time stops falling inside the runs (p = 7..22)
  kernels_pn_*.txt  14 kernels of p and n shaped like a brain simulation's (issue 13's public
                    set: the form c0 + c1·n·log2²n + c2·log2 p·n·log2²n among them), 3 to 20%
                    noise, 5 repetitions, three draws of the noise, three splits: the largest
                    p row, the corner from all others, the corner from the points where neither
                    parameter is largest
  kernels_grid4_*.txt  the same kernels in a smaller study: 4 x 4 points, 3 repetitions
  strong_grid4_*.txt   six strong-scaling kernels of p and n (work / p, a tree beside it, ...)
                    on the same 4 x 4 points, three draws: the largest p row, the corner from
                    the points below
  synth_3p_*.txt    eight kernels of three parameters (ranks, size, threads), 5 x 5 x 5
                    points, the largest p held out and the corner
  collectives_*.txt 7 collectives' latencies over p for two MPI libraries (log p and linear
                    algorithms, 2.5x slower beyond a 16-core node, 5% noise and 1 sample in 20
                    3-30x slow), each point's median or mean of 50 samples, 5 repetitions, three
                    draws of the noise
  real_*.txt        the bundled examples run here at several sizes and rank counts
                    (`python3 bench/predict_corpus.py real [NAME...]`, needs the build and
                    mpiexec; NAME: jacobi, bucketsort, halo3d,
                    jacobi_sizes; all without)"""
import glob
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LG = math.log2
OUT = os.path.join(HERE, "predict")
B = os.environ.get("B", "build")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.mpich")

SEED = (("POISSON_MPI", (64, 128, 256, 512, 1024), (7938954, 4676880, 2818114, 2040480, 1131380)),
        ("NPB-IS", (64, 128, 256, 512, 1024), (644250437, 388778762, 224377159, 125488511, 138804152)),
        ("LULESH", (216, 343, 512, 729, 1000), (366978974, 428496307, 492032255, 553775812, 627985822)))

LAWS_P = {
    "amdahl": lambda p: 2 + 300 / p,
    "p_log_p": lambda p: 5 + 0.2 * p * math.log2(p),
    "linear": lambda p: 40 + 3 * p,
    "sqrt": lambda p: 1 + 0.5 * p ** 0.5,
    "log": lambda p: 3 + 2 * math.log2(p),
    "inverse_sqrt": lambda p: 0.2 + 50 / p ** 0.5,
    "constant": lambda p: 7.0,
    "quadratic_small": lambda p: 100 + 0.05 * p * p,
}
LAWS_PN = {
    "n2_over_p": lambda p, n: n * n / p,
    "n_log_n_plus_log_p": lambda p, n: 0.3 * n * math.log2(n) + 0.02 * math.log2(p) * n * math.log2(n),
    "n_over_p_plus_log_p": lambda p, n: 5 + n / p + 0.4 * math.log2(p),
    "n_plus_p": lambda p, n: 10 + 0.01 * n + 0.5 * p,
    "n_times_log_p": lambda p, n: 2 + 0.001 * n * math.log2(p),
}


def write(name, params, points, series, holdout, note, out=OUT):
    with open(os.path.join(out, name), "w") as f:
        f.write("# %s\n# holdout %s\n" % (note, holdout))
        f.write("PARAMETER %s\n" % " ".join(params))
        f.write("POINTS %s\n" % " ".join(
            ("(%s)" % " ".join("%.17g" % v for v in pt)) if len(params) > 1 else "%.17g" % pt[0]
            for pt in points))
        for (region, metric), rows in sorted(series.items()):
            f.write("REGION %s\nMETRIC %s\n" % (region, metric))
            for reps in rows:
                f.write("DATA %s\n" % " ".join("%.10g" % v for v in reps))


def synthetic():
    for name, ps, ts in SEED:
        write("seed000_%s.txt" % name, ["p"], [(p,) for p in ps],
              {(name, "delta_time_max"): [[t] for t in ts]}, "p",
              "seed 000, table 3: max per-rank delta-time sum (us)")
    rng = random.Random(13)

    def noisy(v):
        return v * math.exp(rng.gauss(0, 0.03))  # multiplicative noise, 3% log-normal
    ps = (2, 4, 8, 16, 32, 64, 128)
    write("synth_p.txt", ["p"], [(p,) for p in ps],
          {(law, "time"): [[noisy(f(p)) for _ in range(3)] for p in ps] for law, f in LAWS_P.items()},
          "p", "laws of p, 3% log-normal noise, 3 repetitions")
    # a short study: four doublings, so the largest p is predicted from three values
    ps, short = (8, 16, 32, 64), random.Random(17)
    write("synth_p4.txt", ["p"], [(p,) for p in ps],
          {("%s.%d" % (law, draw), "time"): [[f(p) * math.exp(short.gauss(0, 0.05))
                                               for _ in range(3)] for p in ps]
           for draw in (1, 2, 3) for law, f in LAWS_P.items()},
          "p", "laws of p at p = 8..64, 5% log-normal noise, 3 repetitions, 3 draws of the noise")
    pts = [(p, n) for p in (2, 4, 8, 16, 32, 64) for n in (64, 128, 256, 512, 1024)]
    data = {(law, "time"): [[noisy(f(p, n)) for _ in range(3)] for p, n in pts]
            for law, f in LAWS_PN.items()}
    write("synth_pn.txt", ["p", "n"], pts, data, "p",
          "laws of p and n, 3% log-normal noise, 3 repetitions; the largest p row held out")
    write("synth_pn_corner.txt", ["p", "n"], pts, data, "corner",
          "the same; the (largest p, largest n) point held out, all others known")
    kernels_pn()
    strong_grid4()
    collectives()
    weak()
    strong()
    cross()
    turn()
    three_parameters()


def strong():
    """Strong scaling: work divided over p plus an overhead growing with p (a tree's log2 p, a
    2-D surface's p^(1/2), a gather's p, a sort's p log2 p), large enough at the held-out p
    that the time stops falling near there; three draws of the noise."""
    p_draws("synth_strong.txt", 31, (2, 4, 8, 16, 32, 64, 128),
            {"work_plus_log": lambda p: 1 + 100 / p + 0.8 * LG(p),
             "work_plus_sqrt": lambda p: 2 + 200 / p + 0.3 * p ** 0.5,
             "work_plus_linear": lambda p: 1 + 100 / p + 0.05 * p,
             "work_plus_p_log_p": lambda p: 1 + 500 / p + 0.005 * p * LG(p)},
            "work / p plus an overhead growing with p")


def p_draws(name, seed, ps, laws, what):
    """Write the laws of p at ps with 3% log-normal noise, 3 repetitions, 3 draws of the noise
    (random seed seed), the largest p held out."""
    rng = random.Random(seed)
    data = {("%s.%d" % (law, draw), "time"):
            [[f(p) * math.exp(rng.gauss(0, 0.03)) for _ in range(3)] for p in ps]
            for law, f in laws.items() for draw in (1, 2, 3)}
    write(name, ["p"], [(p,) for p in ps], data, "p",
          what + ", 3% log-normal noise, 3 repetitions, 3 draws of the noise")


def turn():
    """Strong scaling whose time stops falling inside the runs: work / p plus an overhead that
    takes over between p = 7 and 22, runs at p = 1..32 and the next doubling held out; three
    draws of the noise."""
    p_draws("synth_turn.txt", 37, (1, 2, 4, 8, 16, 32, 64),
            {"turn_linear": lambda p: 1 + 40 / p + 0.2 * p,
             "turn_log": lambda p: 1 + 50 / p + 5 * LG(p),
             "turn_sqrt": lambda p: 2 + 100 / p + 2 * p ** 0.5,
             "turn_p_log_p": lambda p: 1 + 200 / p + 0.1 * p * LG(p)},
            "work / p plus an overhead that takes over inside the runs (p = 7..22)")


def pn_draws(rng, pts):
    """The laws of p and n at pts, 3% log-normal noise, 3 repetitions, 3 draws of the noise."""
    return {("%s.%d" % (law, draw), "time"):
            [[f(p, n) * math.exp(rng.gauss(0, 0.03)) for _ in range(3)] for p, n in pts]
            for law, f in LAWS_PN.items() for draw in (1, 2, 3)}


def cross():
    """The laws of p and n measured one parameter at a time, as a user scales the ranks at one
    size and the size at one rank count (a cross: p = 2..64 at n = 64, n = 64..1024 at p = 2),
    the corner (64, 1024) held out: how p and n combine there is not measured. Three draws of
    the noise."""
    rng = random.Random(37)
    pts = [(p, 64) for p in (2, 4, 8, 16, 32, 64)] + [(2, n) for n in (128, 256, 512, 1024)]
    pts.append((64, 1024))
    data = pn_draws(rng, pts)
    write("synth_cross.txt", ["p", "n"], pts, data, "corner",
          "laws of p and n measured as a cross (p at the smallest n, n at the smallest p), "
          "3% log-normal noise, 3 repetitions, 3 draws of the noise; the corner held out")


def weak():
    """The laws of p and n along n = 16·p (a weak-scaling series, as a store holds it when
    TARDY_PARAMS gives the problem size: p and n change together in every run), three draws
    of the noise."""
    rng = random.Random(29)
    ps = (2, 4, 8, 16, 32, 64)
    pts = [(p, 16 * p) for p in ps]
    data = pn_draws(rng, pts)
    write("synth_weak.txt", ["p", "n"], pts, data, "p",
          "laws of p and n along n = 16 p (weak scaling), 3% log-normal noise, 3 repetitions, "
          "3 draws of the noise")


KERNELS_PN = {  # name: (law, noise as a log-normal sigma)
    "connectivity_update": (lambda p, n: 40 + (2e-4 + 3e-5 * LG(p)) * n * LG(n) ** 2, 0.03),
    "spike_exchange": (lambda p, n: 5 + (1e-4 + 4e-5 * LG(p)) * n * LG(n) ** 2, 0.05),
    "neuron_update": (lambda p, n: 2 + 3e-3 * n * LG(n), 0.02),
    "allreduce_sync": (lambda p, n: 0.5 + 0.3 * LG(p), 0.08),
    "alltoall_counts": (lambda p, n: 0.2 + 0.01 * p, 0.10),
    "synapse_create": (lambda p, n: 1 + 0.02 * n, 0.04),
    "barnes_hut": (lambda p, n: 3 + 1e-3 * n * LG(p), 0.05),
    "octree_update": (lambda p, n: 0.5 + 0.05 * p * LG(p), 0.06),
    "io_flush": (lambda p, n: 12.0, 0.05),
    "calcium_update": (lambda p, n: 0.1 + 2e-6 * n ** 1.5, 0.03),
    "global_stats": (lambda p, n: 0.3 + 0.05 * LG(p) * LG(n), 0.07),
    "rebalance": (lambda p, n: 4 + 1e-3 * n + 0.05 * p, 0.05),
    "plasticity": (lambda p, n: 1 + 1e-4 * n * p ** (1 / 3), 0.04),
    "timers": (lambda p, n: 1e-3, 0.20),
}


def kernel_values(seed, kernels, pts, reps, draws):
    """{(series, "time"): reps values at each point}: each kernel (law, log-normal sigma) at
    pts with log-normal noise (random seed seed), once per draw of the noise (the series
    "NAME.DRAW"), or once (NAME) where draws is None."""
    rng = random.Random(seed)
    return {(k if draw is None else "%s.%d" % (k, draw), "time"):
            [[f(*pt) * math.exp(rng.gauss(0, s)) for _ in range(reps)] for pt in pts]
            for draw in (draws or (None,)) for k, (f, s) in kernels.items()}


GRIDS = {  # name: (seed of the corpus's noise, values of p, values of n, repetitions)
    "kernels_pn": (1307, (8, 16, 32, 64, 128), (2000, 4000, 6000, 8000, 10000), 5),
    # a smaller study: four values of each parameter, so the largest p is predicted from three
    "kernels_grid4": (1311, (8, 16, 32, 64), (2000, 4000, 6000, 8000), 3),
}


def kernels_pn():
    for name, (seed, ps, ns, reps) in GRIDS.items():
        kernel_grid(name, seed, ps, ns, reps)


KERNELS_STRONG = {  # name: (law, noise as a log-normal sigma): strong scaling over p
    "solve": (lambda p, n: 2 + 1e-4 * n ** 2 / p, 0.03),
    "solve_log": (lambda p, n: 1 + 2e-3 * n * LG(n) / p, 0.04),
    "stencil_tree": (lambda p, n: 0.5 + 1e-3 * n ** 1.5 / p + 0.2 * LG(p), 0.05),
    "fft": (lambda p, n: 1 + 5e-4 * n * LG(n) * LG(p) / p, 0.05),
    "halo": (lambda p, n: 0.3 + 0.05 * (n / p) ** 0.5, 0.05),
    "reduce": (lambda p, n: 0.2 + 0.1 * LG(p) + 1e-5 * n, 0.06),
}


def strong_grid4():
    """The strong-scaling kernels on the 4 x 4 grid: a rule that kept for a parameter of three
    values the term its averaged curve scores best helped the growing kernels and turned these
    kernels' p^-1 into p^(-3/2)·log2 p (docs/design.md 3.4)."""
    _, ps, ns, reps = GRIDS["kernels_grid4"]
    kernel_grid("strong_grid4", 1319, ps, ns, reps, kernels=KERNELS_STRONG,
                about="6 strong-scaling kernels of p and n", noise="3-6%",
                splits=("p", "corner_below"))


GRID_SPLITS = {  # a kernel grid's splits: what each holds out
    "p": "the largest p row held out",
    "corner": "the (largest p, largest n) point held out, all others known",
    "corner_below": "the (largest p, largest n) point from the points where neither p nor n is "
                    "largest",
}


def kernel_grid(name, seed, ps, ns, reps, out=OUT, kernels=KERNELS_PN,
                about="14 kernels of p and n", noise="3-20%", splits=tuple(GRID_SPLITS)):
    """The kernels on the grid ps x ns with reps repetitions and three draws of the noise, in
    the given splits, into out (the corpus; bench/predict_studies.py gives other seeds and a
    directory of its own)."""
    pts = [(p, n) for p in ps for n in ns]
    data = kernel_values(seed, kernels, pts, reps, (1, 2, 3))
    for split in splits:
        write("%s_%s.txt" % (name, split), ["p", "n"], pts, data, split,
              "%s on %d x %d points, %s noise, %d repetitions, 3 draws of the noise; %s" % (
                  about, len(ps), len(ns), noise, reps, GRID_SPLITS[split]), out)


def three_parameters():
    """Eight kernels of the ranks p, a cube's edge n and the threads per rank t on 5 x 5 x 5
    points (a stencil's n³/(p·t) beside a tree's log2 p, a halo's n²·log2 p, a reduction's
    log2 p·t, a solver's n³·log2 n/p, ...), 3-6% noise, 3 repetitions, one draw of the noise
    (a row at the largest p is 25 values of each kernel already); the largest p held out, and
    the corner."""
    kernels = {
        "stencil": (lambda p, n, t: 1 + 1e-3 * n ** 3 / p / t + 0.2 * LG(p), 0.04),
        "halo": (lambda p, n, t: 0.5 + 2e-3 * n ** 2 * LG(p), 0.05),
        "allreduce": (lambda p, n, t: 0.2 + 0.1 * LG(p) * t, 0.06),
        "solve": (lambda p, n, t: 2 + 1e-4 * n ** 3 * LG(n) / p, 0.03),
        "io": (lambda p, n, t: 5 + 1e-3 * n ** 2 * t, 0.05),
        "setup": (lambda p, n, t: 3 + 0.01 * p, 0.05),
        "threads_sync": (lambda p, n, t: 0.1 + 0.05 * t * LG(t + 1), 0.05),
        "const": (lambda p, n, t: 4.0, 0.04),
    }
    pts = [(p, n, t) for p in (8, 16, 32, 64, 128) for n in (32, 48, 64, 80, 96)
           for t in (1, 2, 4, 8, 16)]
    data = kernel_values(53, kernels, pts, 3, None)
    for split, what in (("p", "the largest p held out"),
                        ("corner", "the point where p, n and t are largest held out")):
        write("synth_3p_%s.txt" % split, ["p", "n", "t"], pts, data, split,
              "8 kernels of p, n and t on 5 x 5 x 5 points, 3-6%% noise, 3 repetitions; %s" % what)


def collectives():
    rng = random.Random(2203)
    ps = [2 ** i for i in range(1, 10)]

    def node(p):  # beyond one 16-core node the network is 2.5x slower
        return 1.0 if p <= 16 else 2.5
    laws = {
        "barrier": lambda p: 0.2 + node(p) * 0.4 * LG(p),
        "bcast": lambda p: 0.5 + node(p) * 0.5 * LG(p),
        "allreduce": lambda p: 0.8 + node(p) * 0.7 * LG(p),
        "reduce": lambda p: 0.6 + node(p) * 0.5 * LG(p),
        "allgather": lambda p: 0.9 + node(p) * 0.05 * p,
        "alltoall": lambda p: 1.0 + node(p) * 0.08 * p,
        "gather": lambda p: 0.7 + node(p) * 0.03 * p,
    }
    med, mean = {}, {}
    for draw in (1, 2, 3):
        for lib, scale in (("mpich", 1.0), ("openmpi", 1.3)):
            for c, f in laws.items():
                rows_med, rows_mean = [], []
                for p in ps:
                    reps = [[f(p) * scale * math.exp(rng.gauss(0, 0.05)) *
                             (rng.uniform(3, 30) if rng.random() < 0.05 else 1)
                             for _ in range(50)] for _ in range(5)]
                    rows_med.append([sorted(s)[25] for s in reps])
                    rows_mean.append([sum(s) / len(s) for s in reps])
                key = ("%s_%s.%d" % (lib, c, draw), "latency")
                med[key], mean[key] = rows_med, rows_mean
    for name, data in (("median", med), ("mean", mean)):
        write("collectives_%s.txt" % name, ["p"], [(p,) for p in ps], data, "p",
              "7 collectives x 2 MPI libraries over p, the %s of 50 samples, 5 repetitions, "
              "3 draws of the noise" % name)


REAL = {  # name: (program, sizes, iterations, rank counts)
    "jacobi": ("jacobi", (96, 128, 192, 256, 320, 384), "100", (1, 2)),
    "bucketsort": ("bucketsort", (16384, 32768, 65536, 131072, 262144, 524288), "20", (1, 2)),
    # the application-shaped one: 26 halo messages a step, block side n (weak scaling)
    "halo3d": ("halo3d", (16, 24, 32, 40, 48, 64), "100", (1, 2)),
    # nine sizes at one rank: enough values of n for the upper regime's family (pmnf_upper)
    "jacobi_sizes": ("jacobi", (64, 96, 128, 160, 192, 224, 256, 320, 384), "100", (1,)),
}


def measure(name, store):
    """Real case name run into the run store store, 3 repetitions of each size and rank
    count, and the store's Extra-P export (tardy's own names), whose path is returned."""
    lib = os.path.abspath(os.path.join(B, "lib", "libtardy.so"))
    tardy = os.path.abspath(os.path.join(B, "bin", "tardy"))
    program, sizes, iters, ranks_list = REAL[name]
    for rep in range(3):
        for ranks in ranks_list:
            for n in sizes:
                e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
                e.update({"LD_PRELOAD": lib, "TARDY_SUMMARY": "none", "TARDY_STORE": store,
                          "TARDY_PARAMS": "n=%d" % n})
                subprocess.run([MPIEXEC, "-n", str(ranks),
                                os.path.join(B, "examples", program), str(n), iters],
                               env=e, check=True, capture_output=True)
    path = store + ".txt"
    subprocess.run([tardy, "export-extrap", "--store", store, "-o", path], check=True,
                   capture_output=True)
    return path


def real(names, out=OUT):
    """The examples at several sizes and rank counts, 3 repetitions each, into out (the
    corpus; bench/predict_studies.py gives a directory of its own)."""
    for name in names:
        program, sizes, iters, ranks_list = REAL[name]
        work = tempfile.mkdtemp(prefix="tardy-corpus-")
        try:
            path = measure(name, os.path.join(work, "store"))
            what = "%s here at %s rank%s, %d sizes, 3 repetitions" % (
                program, " and ".join(str(r) for r in ranks_list),
                "" if ranks_list == (1,) else "s", len(sizes))
            keep(path, os.path.join(out, "real_%s.txt" % name), what)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def keep(src, dst, what):
    """The time metrics of the export (means and maxima over ranks) with names of another tool,
    so the default policy predicts each as a series; what: the header's description."""
    out, region, metric, skip = [], None, None, True
    for line in open(src):
        if line.startswith(("PARAMETER", "POINTS")):
            out.append(line)
        elif line.startswith("REGION"):
            region = line[7:].strip()
        elif line.startswith("METRIC"):
            metric = line[7:].strip()
            skip = metric not in ("time_mean", "time_max", "mean", "max") or \
                not (region.startswith("ranks/compute") or " => " in region or "@" in region)
            if not skip:
                clean = region.replace("@", " at ").replace(" => ", " to ").replace("/", "_")
                out.append("REGION %s\nMETRIC %s\n" % (clean, metric))
        elif line.startswith("DATA") and not skip:
            out.append(line)
    with open(dst, "w") as f:
        f.write("# %s; tardy's time metrics\n# holdout n\n" % what)
        f.writelines(out)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    if sys.argv[1:2] == ["real"]:
        unknown = [n for n in sys.argv[2:] if n not in REAL]
        if unknown:
            raise SystemExit("predict_corpus.py: no real case %s (known: %s)" %
                             (", ".join(unknown), ", ".join(REAL)))
        real(sys.argv[2:] or list(REAL))
    else:
        synthetic()
