#!/usr/bin/env python3
"""`make bench-predict` (issue 13): over the corpus in bench/predict/ (bench/predict_corpus.py
says what it holds), hold out the largest value of one parameter (or the corner where every
parameter is largest, from all other points or from those where none is), predict it from
the others with tardy (the default policy, and each family alone) and with Extra-P 4.2.5's
default modeler on the same split (when ../shared/vendor/extrap and the Python modules it
imports are there; else tardy's columns alone, saying why), and print per case the median
error, how many series are within 10%, how often the actual value lies inside tardy's 80%
interval, and on how many series tardy is closer than Extra-P. Extra-P's column counts the
series tardy gives a number for (the others are listed with Extra-P's error on them). Then
the cost of `tardy predict` on 10 runs x 1,000 intervals. Arguments: corpus files instead of
all of bench/predict/ (then without the cost). Figures, not a test."""
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
B = os.environ.get("B", "build")
TARDY = os.path.abspath(os.path.join(B, "bin", "tardy"))
EXTRAP = os.environ.get("EXTRAP", os.path.join(HERE, "..", "..", "shared", "vendor", "extrap"))
# What Extra-P 4.2.5 imports from source (its README; ci/deps --extrap installs them).
EXTRAP_MODULES = ("numpy", "sympy", "sklearn", "marshmallow", "tqdm", "packaging", "matplotlib")
FAMILIES = ("cacheprofile", "constant", "pmnf", "pmnf_upper", "scalaextrap")


def parse(path):
    params, points, series, holdout, region, metric = [], [], {}, None, None, None
    for line in open(path):
        line = line.strip()
        if line.startswith("# holdout"):
            holdout = line.split()[2]
        elif line.startswith("PARAMETER"):
            params = line.split()[1:]
        elif line.startswith("POINTS"):
            toks = line[6:].replace("(", " ").replace(")", " ").split()
            vals = [float(t) for t in toks]
            k = len(params)
            points = [tuple(vals[i:i + k]) for i in range(0, len(vals), k)]
        elif line.startswith("REGION"):
            region = line[7:].strip()
        elif line.startswith("METRIC"):
            metric = line[7:].strip()
            series[(region, metric)] = []
        elif line.startswith("DATA"):
            series[(region, metric)].append([float(v) for v in line.split()[1:]])
    return params, points, series, holdout or params[0]


def write_train(path, params, points, series, keep):
    with open(path, "w") as f:
        f.write("PARAMETER %s\n" % " ".join(params))
        f.write("POINTS %s\n" % " ".join(
            ("(%s)" % " ".join("%.17g" % v for v in pt)) if len(params) > 1 else "%.17g" % pt[0]
            for i, pt in enumerate(points) if keep[i]))
        for (region, metric), rows in series.items():
            f.write("REGION %s\nMETRIC %s\n" % (region, metric))
            for i, reps in enumerate(rows):
                if keep[i]:
                    f.write("DATA %s\n" % " ".join("%.17g" % v for v in reps))


def target_key(params, pt):
    return ",".join("%s=%s" % (k, "%.17g" % v) for k, v in sorted(zip(params, pt)))


def tardy_predict(train, targets, extra=()):
    p = subprocess.run([TARDY, "predict", "--extrap", train, "--at", targets, "--json"] +
                       list(extra), capture_output=True, text=True)
    if p.returncode not in (0, 3):  # 3: no prediction, the note says why
        raise SystemExit("bench-predict: tardy predict failed: %s" % p.stderr[-800:])
    return json.loads(p.stdout)


def extrap_available():
    if not os.path.isdir(os.path.join(EXTRAP, "extrap")):
        return "absent (%s)" % EXTRAP
    env = dict(os.environ, PYTHONPATH="%s:%s" % (EXTRAP, os.path.join(EXTRAP, "_stubs")))
    missing = [m for m in EXTRAP_MODULES
               if subprocess.run(["/usr/bin/python3", "-c", "import " + m], env=env,
                                 capture_output=True).returncode != 0]
    if missing:
        return ("cannot run: Python modules %s missing (`ci/deps --extrap` installs them as root)"
                % ", ".join(missing))
    return None


def extrap_predict(train, points):
    env = dict(os.environ, PYTHONPATH="%s:%s" % (EXTRAP, os.path.join(EXTRAP, "_stubs")))
    arg = ";".join(",".join("%.17g" % v for v in pt) for pt in points)
    p = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "extrap_model.py"), train, arg],
                       env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("bench-predict: Extra-P failed: %s" % p.stderr[-800:])
    return json.loads(p.stdout)


def median(v):
    return statistics.median(v) if v else float("nan")


def pct(v):
    return "%6.1f%%" % (100 * v) if v == v else "      -"


def run_case(path, work, use_extrap):
    params, points, series, holdout = parse(path)
    tops = [max(pt[d] for pt in points) for d in range(len(params))]
    if holdout == "corner":  # the point where every parameter is largest, from all others
        keep = [list(pt) != tops for pt in points]
    elif holdout == "corner_below":  # the same point, from those with no parameter largest
        keep = [all(v < t for v, t in zip(pt, tops)) for pt in points]
    else:
        d = params.index(holdout)
        keep = [pt[d] < tops[d] for pt in points]
    test = [i for i, pt in enumerate(points) if not keep[i] and
            (holdout != "corner_below" or list(pt) == tops)]
    train = os.path.join(work, os.path.basename(path))
    write_train(train, params, points, series, keep)
    targets = ";".join(target_key(params, points[i]) for i in test)
    default = tardy_predict(train, targets)
    fams = tardy_predict(train, targets, ["--lua", os.path.join(HERE, "predict_families.lua"),
                                          "--policy", "families"])
    dflt = {(q["target"], q["metric"]): q for q in default["predictions"]}
    fam = {(q["target"], q["metric"], q["family"]): q["value"] for q in fams["predictions"]}
    ex = extrap_predict(train, [points[i] for i in test]) if use_extrap else {}
    errs = {k: [] for k in ("default",) + FAMILIES + ("extrap",)}
    inside, widths, missing, refused, pairs = 0, [], 0, [], []
    for (region, metric), rows in series.items():
        for j, i in enumerate(test):
            actual = statistics.median(rows[i])
            if actual == 0:
                continue
            tk, mk = target_key(params, points[i]), "%s/%s" % (region, metric)
            q = dflt.get((tk, mk))

            def err(v):
                return abs(v - actual) / abs(actual)
            if q is None:
                missing += 1
            else:
                errs["default"].append(err(q["value"]))
                if "low" in q:
                    inside += q["low"] <= actual <= q["high"]
                    widths.append((q["high"] - q["low"]) / abs(q["value"]) if q["value"] else 0)
            for f in FAMILIES:
                if (tk, mk, f) in fam:
                    errs[f].append(err(fam[(tk, mk, f)]))
            v = ex.get("%s/%s" % (region, metric))
            if v is not None and q is not None:  # on the series tardy gives a number for
                errs["extrap"].append(err(v[j]))
                pairs.append((err(q["value"]), err(v[j])))
            elif v is not None:
                refused.append(err(v[j]))
    return errs, inside, widths, missing, refused, pairs


def closer(pairs):
    """How many of the series tardy predicts closer than Extra-P, out of those where they
    differ: the head-to-head count, which a median over a few series can hide."""
    differ = [(a, b) for a, b in pairs if a != b]
    return "%d/%d" % (sum(a < b for a, b in differ), len(differ)) if differ else "-"


def cost():
    """CPU time of tardy predict on 10 runs x 1,000 intervals (bench/synth_store.py) from a
    profile of jacobi made here; None when no MPI run can be made."""
    work = tempfile.mkdtemp(prefix="tardy-bench-predict-")
    try:
        lib = os.path.abspath(os.path.join(B, "lib", "libtardy.so"))
        e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
        e.update({"LD_PRELOAD": lib, "TARDY_SUMMARY": "none", "TARDY_STORE": work + "/t"})
        p = subprocess.run([os.environ.get("MPIEXEC", "mpiexec.mpich"), "-n", "2",
                            os.path.join(B, "examples", "jacobi"), "128", "10"], env=e,
                           capture_output=True)
        tpl = glob.glob(work + "/t/*.json")
        if p.returncode or not tpl:
            return None
        subprocess.run([sys.executable, os.path.join(HERE, "synth_store.py"), tpl[0],
                        work + "/s", "10", "1000"], check=True)
        times = []
        for _ in range(3):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([TARDY, "predict", "--store", work + "/s", "--at", "p=64"],
                           check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        return statistics.median(times)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    why = extrap_available()
    use_extrap = why is None
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "predict", "*.txt")))
    for path in files:
        if not os.path.isfile(path):
            raise SystemExit("predict_bench.py: no corpus file %s\n%s" % (path, __doc__))
    work = tempfile.mkdtemp(prefix="tardy-bench-predict-")
    cols = ("default",) + FAMILIES + (("extrap",) if use_extrap else ())
    print("prediction at the held-out largest scale: median error (series within 10%)")
    if not use_extrap:
        print("Extra-P: %s; its column is left out" % why)
    head = "%-24s %6s" % ("case", "series") + "".join(
        " %15s" % ("Extra-P 4.2.5" if c == "extrap" else c) for c in cols) + \
        " %9s %8s" % ("in 80%", "width") + (" %9s" % "closer" if use_extrap else "")
    print(head)
    total_in, total_n, all_widths, all_err, all_pairs = 0, 0, [], {c: [] for c in cols}, []
    try:
        for path in files:
            errs, inside, widths, missing, refused, pairs = run_case(path, work, use_extrap)
            n = len(errs["default"])
            line = "%-24s %6d" % (os.path.basename(path)[:-4], n + missing)
            for c in cols:
                e = errs[c]
                all_err[c] += e
                line += " %8s (%2d/%2d)" % (pct(median(e)).strip(), sum(x <= 0.10 for x in e),
                                           len(e)) if e else " %15s" % "-"
            line += " %4d/%-4d %7s" % (inside, n, pct(median(widths)).strip())
            if use_extrap:
                line += " %9s" % closer(pairs)
                all_pairs += pairs
            if missing:
                line += "  %d without a number%s" % (missing, (
                    " (Extra-P's median error there %s)" % pct(median(refused)).strip())
                    if refused else "")
            print(line)
            total_in, total_n = total_in + inside, total_n + n
            all_widths += widths
    finally:
        shutil.rmtree(work, ignore_errors=True)
    line = "%-24s %6d" % ("all", total_n)
    for c in cols:
        e = all_err[c]
        line += " %8s (%2d/%2d)" % (pct(median(e)).strip(), sum(x <= 0.10 for x in e), len(e))
    print(line + " %4d/%-4d %7s" % (total_in, total_n, pct(median(all_widths)).strip()) +
          (" %9s" % closer(all_pairs) if use_extrap else ""))
    print("interval coverage: %.1f%% of %d held-out values inside the stated 80%% interval; "
          "median width %.1f%% of the value" % (100.0 * total_in / max(total_n, 1), total_n,
                                                100 * median(all_widths)))
    if sys.argv[1:]:  # given files (predict_studies.py), the run on the corpus gives the cost
        return
    t = cost()
    print("cost: tardy predict on 10 runs x 1,000 intervals: %s" %
          ("%.2f s CPU (median of 3)" % t if t is not None else "skipped (no MPI run)"))


if __name__ == "__main__":
    main()
