"""The Lua policies and the prediction engine: `tardy predict` (seed, recovery, Extra-P files,
the run store), broken scripts offline and in a job, the API's metrics."""
import glob
import json
import math
import os
import re
import shutil
import stat
import subprocess
import tempfile

from run import B, Room, Run, TARDY, TIMEOUT, binary, expect, mpi_rows, one_row, site_line, with_run
from cases.counters import INMPI, WORK
from cases.predict import one_rank_profile, run_policy

room = Room("lua")


def tardy_predict(args, env=None):
    """tardy predict with a policy that makes its own points: the runs it is given (tardy predict
    needs some) are an Extra-P file of one series no such policy reads."""
    fd, unread = tempfile.mkstemp(prefix="tardy-unread-", suffix=".txt")
    with os.fdopen(fd, "w") as f:
        f.write("PARAMETER p\nPOINTS 1 2 4\nREGION unread\nDATA 1\nDATA 2\nDATA 3\n")
    e = {k: v for k, v in os.environ.items() if not k.startswith("TARDY_")}
    e.update(env or {})
    try:
        return subprocess.run(["timeout", str(TIMEOUT), TARDY, "predict", "--extrap", unread] + args,
                              capture_output=True, text=True, env=e)
    finally:
        os.unlink(unread)


def predictions(text):
    """{metric: value} from the predictions table of `tardy predict`."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$", line)
        if m and "=" in m.group(1):
            out[m.group(6).split(" (")[0].strip()] = float(m.group(2))
    return out


def test_seed000():
    p = tardy_predict(["--at", "p=1024", "--lua", "tests/lua/seed000.lua", "--policy", "seed000"])
    expect(p.returncode == 0, p.stderr)
    got = predictions(p.stdout)
    for name, want in (("POISSON_MPI", 1606645.3), ("NPB-IS", 88104753.1), ("LULESH", 658495132.9)):
        expect(name in got, "no prediction for %s in %s" % (name, p.stdout))
        expect(abs(got[name] - want) <= 0.001 * want, "%s: %.1f, seed %.1f" % (name, got[name], want))


def test_one_parameter_refusals():
    p = tardy_predict(["--at", "p=8", "--lua", "tests/lua/one_parameter.lua", "--policy",
                       "one_parameter"])
    expect(p.returncode == 3, "every family refuses, yet exit %d: %s" % (p.returncode, p.stderr))
    out = p.stdout + p.stderr
    for want in ("scalaextrap 1: needs 3 runs at different process counts, has 2",
                 "scalaextrap 2: scalaextrap models the process count only (n varies)",
                 "cacheprofile 3: needs 3 runs, has 2",
                 "cacheprofile 4: cacheprofile models one parameter at a time (p and n vary)",
                 "cacheprofile 5: no parameter varies over the runs",
                 "cacheprofile 6: MAPE selection needs non-zero values",
                 "cacheprofile 7: no cache-profile model fits",
                 "scalaextrap 8: scalaextrap: point 2 has no number p or y"):
        expect(want in out, "no %r in %s" % (want, out))


def test_recovery():
    p = tardy_predict(["--at", "p=1", "--lua", "tests/lua/recovery.lua", "--policy", "recovery"])
    expect(p.returncode == 0, p.stderr)
    got = predictions(p.stdout)
    for law in ("c+k/p", "c+k*p*log2(p)", "c+k*p", "c+k/p+m*log2(p)", "n^2/p",
                "cross: c+k*log2(p)+m*n*log2(n)", "cross: c+k*n^2/p"):
        pred, true = got.get(law), got.get(law + " actual")
        expect(pred is not None and true, "law %s missing: %s" % (law, p.stdout))
        expect(abs(pred - true) <= 0.10 * true, "%s: predicted %g, actual %g" % (law, pred, true))


def test_broken_script(policy, needle, script="tests/lua/broken.lua"):
    if needle is None:  # the error names the file and the marked line
        needle = "broken.lua:%d:" % site_line(script, policy)
    # a budget of 50 million instructions and 64 MiB (defaults 2,000 million, 512 MiB): the
    # endless loop and the memory bomb end in about a second even on a loaded machine
    p = tardy_predict(["--at", "p=4", "--lua", script, "--policy", policy],
                      {"TARDY_LUA_BUDGET": "50", "TARDY_LUA_MEMORY": "64"})
    first = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
    expect(p.returncode == 1, "exit %d" % p.returncode)
    expect(needle in first, "first error line %r lacks %r" % (first, needle))


def test_broken_in_job(policy):
    """A failing script leaves the program's exit code and its profile alone, and says where
    it failed in one warning line."""
    script = "tests/lua/broken.lua"

    @with_run([binary("exits"), "return", "4"], 2, {
        "TARDY_LUA": os.path.abspath(script), "TARDY_POLICY": policy, "TARDY_PREDICT": "p=8",
        "TARDY_LUA_BUDGET": "50", "TARDY_LUA_MEMORY": "64"})
    def _(run):
        expect(run.rc == 4, "exit %d" % run.rc)
        expect(run.profile is not None, "profile lost")
        where = "broken.lua:%d:" % site_line(script, policy)
        lines = [line for line in run.err.splitlines() if "Lua" in line and where in line]
        expect(len(lines) == 1, "no one warning naming %s: %s" % (where, run.err[-600:]))
        expect("the Lua policy failed" in run.profile.get("prediction_note", ""), "note")


def test_mistyped_target_in_job():
    """TARDY_PREDICT mistyped: the program's exit code and profile stay, one warning names the
    setting and the target, and so does the profile's note (not "the Lua policy failed")."""
    @with_run([binary("exits"), "return", "5"], 2, {"TARDY_PREDICT": "p=8,p=16"})
    def _(run):
        expect(run.rc == 5, "exit %d" % run.rc)
        expect(run.profile is not None, "profile lost")
        want = "TARDY_PREDICT: target 'p=8,p=16': 'p=16' names a parameter given before"
        lines = [line for line in run.err.splitlines() if want in line]
        expect(len(lines) == 1, "no one warning %r: %s" % (want, run.err[-600:]))
        note = run.profile.get("prediction_note", "")
        expect(note == "no predictions: " + want, "note: %r" % note)


def test_broken_at_init():
    """A script that fails its check at MPI_Init: one warning, no second one at finalize."""
    @with_run([binary("exits"), "return", "3"], 2, {
        "TARDY_LUA": os.path.abspath("tests/lua/syntax_error.lua"), "TARDY_PREDICT": "p=8"})
    def _(run):
        expect(run.rc == 3, "exit %d" % run.rc)
        expect(run.profile is not None, "profile lost")
        expect(run.err.count("syntax_error.lua:3:") == 1, "warnings: %s" % run.err[-800:])
        expect("failed their check" in run.profile.get("prediction_note", ""), "note")


def test_docs_example():
    """The worked example of docs/lua-api.md runs and predicts Amdahl data exactly."""
    text = open("docs/lua-api.md").read()
    m = re.search(r"<!-- example: my.lua -->\s*```lua\n(.*?)```", text, re.S)
    expect(m, "no example in docs/lua-api.md")
    work = tempfile.mkdtemp(prefix="tardy-doc-")
    try:
        script, data = os.path.join(work, "my.lua"), os.path.join(work, "app.extrap")
        open(script, "w").write(m.group(1))
        with open(data, "w") as f:
            f.write("PARAMETER p\nPOINTS 2 4 8 16\nREGION ranks/mpi\n")
            for metric in ("mean", "max"):
                f.write("METRIC %s\n" % metric + "".join(
                    "DATA %r\n" % (0.5 + 8.0 / p) for p in (2, 4, 8, 16)))
            f.write("REGION MPI_Allreduce@main app.c:10\nMETRIC time_mean\n" + "".join(
                "DATA %r\n" % (0.1 + 0.01 * p) for p in (2, 4, 8, 16)))
        out, _err = predict_json(["--extrap", data, "--at", "p=64", "--lua", script,
                                  "--policy", "mpi_outlook"])
        got = by_metric(out["predictions"])
        mpi = got.get(("p=64", "MPI time per rank, max (s)"))
        expect(mpi and abs(mpi["value"] - 0.625) < 1e-9 and mpi["extrapolated"], "mpi: %s" % mpi)
        call = got.get(("p=64", "MPI_Allreduce@main app.c:10 time per rank (s)"))
        expect(call and abs(call["value"] - 0.74) < 1e-6, "call path: %s" % call)
        out, _err = predict_json(["--extrap", data, "--at", "p=64", "--lua", script])
        fams = {q["family"] for q in out["predictions"]}
        expect("amdahl" in fams, "the default policy did not use the user's family: %s" % fams)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_libraries():
    """A user's policy built on the shipped libraries (tardy.require) picks the law of an
    Extra-P file's series and states its interval as the default policy does; the default
    policy itself runs on them."""
    work = tempfile.mkdtemp(prefix="tardy-libs-")
    try:
        data = os.path.join(work, "app.extrap")
        with open(data, "w") as f:
            f.write("PARAMETER p\nPOINTS 2 4 8 16 32\nREGION ranks/mpi\nMETRIC max\n" + "".join(
                "DATA %r %r\n" % (0.5 + 8.0 / p * 0.98, 0.5 + 8.0 / p * 1.02)
                for p in (2, 4, 8, 16, 32)))
        out, _err = predict_json(["--extrap", data, "--at", "p=128", "--lua",
                                  "tests/lua/libraries.lua", "--policy", "library_user"])
        got = by_metric(out["predictions"]).get(("p=128", "MPI time per rank, max (s)"))
        want = 0.5 + 8.0 / 128
        expect(got and abs(got["value"] - want) <= 0.02 * want, "library_user: %s" % got)
        expect(got["low"] < got["value"] < got["high"] and got["coverage"] == 80,
               "interval: %s" % got)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_api_metrics():
    """Every statistic the profile holds reaches Lua under its name (memory included), with
    the same value, for MPI rows, intervals and per-rank metrics."""
    src = "tests/mpi/p2p_counts.c"

    @with_run([binary("p2p_counts")], 2, {
        "TARDY_LUA": os.path.abspath("tests/lua/api.lua"), "TARDY_POLICY": "api_dump",
        "TARDY_PREDICT": "p=2", "TARDY_PARAMS": "n=7"})
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d %s" % (run.rc, run.err[-600:]))
        prof = run.profile
        got = {q["metric"]: q["value"] for q in prof.get("predictions", [])}
        expect(got, "no predictions: %s" % prof.get("prediction_note"))
        send = one_row(prof, "MPI_Send", src, "send100")
        keys = [k for k in got if k.startswith("mpi|MPI_Send@") and k.endswith("|sent|sum")]
        expect(any(got[k] == send["sent"]["sum"] for k in keys), "sent bytes: %s" % keys)
        init = mpi_rows(prof, "MPI_Init")[0]
        key = [k for k in got if k.startswith("mpi|MPI_Init@") and "|memory_live|max" in k]
        expect(key and got[key[0]] == init["memory"]["live_bytes"]["max"],
               "MPI_Init memory held: %s vs %s" % (key, init.get("memory")))
        for stat, name in (("allocs", "memory_allocs"), ("alloc_bytes", "memory_allocated"),
                           ("freed_bytes", "memory_freed")):
            k = [x for x in got if x.startswith("mpi|MPI_Init@") and "|%s|sum" % name in x]
            expect(k and got[k[0]] == init["memory"][stat]["sum"], "%s: %s" % (name, k))
        for name, stat in prof["ranks"].items():
            if isinstance(stat, dict) and "sum" in stat and stat["ranks"]:
                expect(got.get("rank|%s|value|max" % name) == stat["max"] and
                       got.get("rank|%s|time|sum" % name) == stat["sum"], "rank %s" % name)
        expect(got.get("rank|compute|value|p50") is not None, "compute quantiles")
        n_iv = sum(1 for k in got if k.startswith("interval|") and k.endswith("|count|sum"))
        expect(n_iv == len(prof["intervals"]),
               "%d of %d intervals" % (n_iv, len(prof["intervals"])))
        for k, v in got.items():
            if k.endswith("|p90"):
                expect(v <= got[k[:-4] + "|max"] * 1.000001 + 1e-12, "p90 > max: %s" % k)


def comm_free_quantiles(time, hist):
    """A 2-rank run's profile with its MPI_Comm_free row's time statistic and ranks_histogram
    replaced, and what tests/lua/quantiles.lua reads of it: (profile, {metric: value})."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        run = Run([binary("p2p_counts")], 2, {"TARDY_STORE": store, "TARDY_PROFILE": "none"})
        expect(run.rc == 0, "exit %d %s" % (run.rc, run.err[-600:]))
        run.cleanup()
        path = glob.glob(os.path.join(store, "*.json"))[0]
        with open(path) as f:
            prof = json.load(f)
        row = mpi_rows(prof, "MPI_Comm_free")[0]
        row["time"], row["ranks_histogram"] = time, hist
        with open(path, "w") as f:
            json.dump(prof, f)
        p = subprocess.run(["timeout", str(TIMEOUT), TARDY, "predict", "--store", store, "--at",
                            "p=2", "--lua", os.path.abspath("tests/lua/quantiles.lua"),
                            "--policy", "quantiles", "--json"], capture_output=True, text=True)
        expect(p.returncode == 0, "tardy predict: %s" % p.stderr[-600:])
        return prof, {q["metric"]: q["value"] for q in json.loads(p.stdout)["predictions"]}
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_api_quantile_rounding():
    """A row's per-rank quantiles stay within its extremes when the bin sums, rounded to the
    nanosecond like the extremes, put a bin's mean a fraction of one above the largest: two
    ranks' 24,156.4 ns read back as 48,313 ns in one bin and 24,156 ns at most."""
    _, got = comm_free_quantiles([48313e-9, 24156e-9, 0, 24156e-9, 1, 2],
                                 [[15, 2, 48313e-9]])  # bin 15: [16,384, 32,768) ns
    key = [k[:-4] for k in got if "MPI_Comm_free" in k and k.endswith("|p90")]
    expect(key, "no MPI_Comm_free quantiles: %s" % sorted(got)[:5])
    for k in got:
        if k.endswith("|p90") or k.endswith("|p50"):
            base = k[:-4]
            expect(got[base + "|min"] <= got[k] <= got[base + "|max"],
                   "%s = %r outside [%r, %r]" % (k, got[k], got[base + "|min"],
                                                 got[base + "|max"]))


def test_api_quantile_two_ranks():
    """Quantiles interpolate between the ranks around them (Hyndman and Fan's definition 7):
    at 2 ranks the median of a row's time is the mean of the two, its 90th percentile 0.9 of
    the way from the smaller to the larger, and so for per-rank compute; the lower rank had
    stood for the median, so the median / mean spread of every 2-rank run fell below 1."""
    prof, got = comm_free_quantiles([30e-6, 10e-6, 0, 20e-6, 1, 2],
                                    [[14, 1, 10e-6], [15, 1, 20e-6]])  # [8, 16), [16, 32) us
    key = [k[:-4] for k in got if "MPI_Comm_free" in k and k.endswith("|p50")]
    expect(key, "no MPI_Comm_free quantiles: %s" % sorted(got)[:5])
    for field, want in (("p50", 15e-6), ("p90", 19e-6)):
        v = got[key[0] + "|" + field]
        expect(abs(v - want) <= 1e-12, "MPI_Comm_free %s %r, want %r" % (field, v, want))
    compute = prof["ranks"]["compute"]
    lo, hi = compute[1], compute[3]
    expect(hi > lo, "the two ranks' compute is the same: %s" % compute)
    for field, want in (("mean", (lo + hi) / 2), ("p50", (lo + hi) / 2),
                        ("p90", lo + 0.9 * (hi - lo))):
        v = got.get("compute|value|" + field)
        expect(v is not None and abs(v - want) <= 1e-9 * want,
               "compute %s %r, want %r" % (field, v, want))


def test_api_counters():
    """PAPI counters of rows reach Lua under their event names, and the default policy
    predicts them per interval and call path."""
    @with_run([binary("sde_counters")], 2, {
        "TARDY_PAPI": WORK + "," + INMPI, "TARDY_LUA": os.path.abspath("tests/lua/api.lua"),
        "TARDY_POLICY": "api_dump", "TARDY_PREDICT": "p=2"})
    def _(run):
        expect(run.rc == 0 and run.profile, "exit %d %s" % (run.rc, run.err[-600:]))
        got = {q["metric"]: q["value"] for q in run.profile.get("predictions", [])}
        n = 0
        for kind, rows in (("mpi", run.profile["mpi"]), ("interval", run.profile["intervals"])):
            for r in rows:
                for event, st in r.get("counters", {}).items():
                    keys = [k for k in got if k.startswith(kind + "|") and
                            k.endswith("|%s|sum" % event) and got[k] == st["sum"]]
                    expect(keys, "%s counter %s = %s not in Lua" % (kind, event, st["sum"]))
                    n += 1
        expect(n > 0, "no counters in the profile: %s" % run.profile.get("counters"))


JACOBI = os.path.abspath(os.path.join(B, "examples", "jacobi"))
# 1 and 2 ranks on two cores: the compute times of 4 ranks that share 2 cores with MPICH's
# busy waits were so noisy that near-best models disagreed 10^3-10^5x at the target and the
# headline was refused (2 of 13 runs of the test with the machine busy, 1 CI run in 10)
SIZES = (48, 64, 80, 96, 112, 128)
TARGET = "p=2,n=192"
QUANTILE_METRICS = ("90th percentile", "median")  # need the per-rank histograms of a profile


def by_metric(predictions):
    return {(q["target"], q["metric"]): q for q in predictions}


def same_predictions(a, b, what, skip=()):
    """a and b (lists of predictions) hold the same metrics and values (b may lack those whose
    metric contains a string of skip)."""
    pa, pb = by_metric(a), by_metric(b)
    missing = [k for k in pa if k not in pb and not any(s in k[1] for s in skip)]
    extra = [k for k in pb if k not in pa]
    expect(not missing and not extra, "%s: missing %s, extra %s" % (what, missing[:3], extra[:3]))
    for k in pb:
        va, vb = pa[k]["value"], pb[k]["value"]
        expect(abs(va - vb) <= 1e-9 * max(abs(va), 1e-300), "%s: %s %r vs %r" % (what, k, va, vb))


def predict_json(args, status=0):
    """`tardy predict --json ARGS`, its exit status STATUS (3: no prediction at all)."""
    p = subprocess.run(["timeout", str(TIMEOUT), TARDY, "predict", "--json"] + args,
                       capture_output=True, text=True)
    expect(p.returncode == status, "tardy predict %s: exit %d, %s" % (
        " ".join(args), p.returncode, p.stderr[-800:]))
    return json.loads(p.stdout), p.stderr


def test_store_predictions():
    """Acceptance 7(c): jacobi at 6 sizes and 1, 2 ranks fills a store; the prediction for a
    larger size made at finalize equals the one `tardy predict` makes offline from the store
    and from its Extra-P export; a run with too few runs before it says so; corrupt, foreign
    and other programs' files are skipped with a warning naming them."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        final = None
        for ranks in (1, 2):
            for n in SIZES:
                env = {"TARDY_STORE": store, "TARDY_PARAMS": "n=%d" % n}
                second, last = (ranks, n) == (1, SIZES[1]), (ranks, n) == (2, SIZES[-1])
                if second or last:
                    env["TARDY_PREDICT"] = TARGET
                run = Run([JACOBI, str(n), "20"], ranks, env)
                try:
                    expect(run.rc == 0 and run.profile, "jacobi -n %d n=%d: exit %d %s" % (
                        ranks, n, run.rc, run.err[-600:]))
                    if second:
                        expect(not run.profile.get("predictions") and "too few runs" in
                               run.profile.get("prediction_note", ""), "2 runs: %s %s" % (
                                   run.profile.get("predictions"),
                                   run.profile.get("prediction_note")))
                    if last:
                        final = run.profile
                        expect("== predictions" in run.summary, "no predictions in the summary")
                finally:
                    run.cleanup()
        got = by_metric(final["predictions"])
        head = got.get(("n=192,p=2", "per-rank compute time, max (s)"))
        expect(head and head["extrapolated"] and "uncertainty_pct" in head and
               "fit_error_pct" in head, "headline prediction: %s (note: %s; predicted: %s)" % (
                   head, final.get("prediction_note"), sorted(set(m for _t, m in got))))
        # the max over ranks is at least their mean: so is the interval of the ratio
        spread = [q for (_t, m), q in got.items() if m.startswith("spread of per-rank compute "
                                                                  "(max / mean)")]
        expect(spread and all(q["value"] >= 1 and q["low"] >= 1 for q in spread),
               "max / mean below 1: %s" % spread)
        # the statistics over the ranks in their order at every target, though each ratio to
        # the mean has a model of its own (a 90th percentile had come out below the median)
        for target in (",".join(sorted(t.split(","))) for t in TARGET.split(";")):
            stats = [got.get((target, "per-rank compute time, %s (s)" % s), {}).get("value")
                     for s in ("median", "90th percentile", "max")]
            expect(None not in stats and stats == sorted(stats),
                   "median, 90th percentile, max at %s: %s" % (target, stats))
        expect(len(glob.glob(os.path.join(store, "*.json"))) == 12, "store holds %d runs" %
               len(glob.glob(os.path.join(store, "*.json"))))
        # files the store must skip: unreadable ones each named in a warning, runs of other
        # programs and of other call sites counted in one warning each
        open(os.path.join(store, "tardy-broken.json"), "w").write('{"schema": "tardy-prof')
        open(os.path.join(store, "notes.json"), "w").write('{"hello": 1}\n')
        other = Run([binary("exits"), "return", "0"], 1, {"TARDY_STORE": store})
        other.cleanup()
        shallow = Run([JACOBI, "64", "5"], 1, {"TARDY_STORE": store, "TARDY_DEPTH": "0"})
        shallow.cleanup()
        offline, err = predict_json(["--store", store, "--at", TARGET])
        for name in ("tardy-broken.json", "notes.json", "1 run of other programs in %s: exits (1)"
                     % store, "1 run of jacobi with other MPI call sites"):
            expect(name in err, "no warning naming %s: %s" % (name, err[-800:]))
        same_predictions(final["predictions"], offline["predictions"], "finalize vs offline")
        extrap = os.path.join(store, "extrap.txt")
        p = subprocess.run([TARDY, "export-extrap", "--store", store, "-o", extrap],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "export-extrap: %s" % p.stderr)
        back, _err = predict_json(["--extrap", extrap, "--at", TARGET])
        same_predictions(offline["predictions"], back["predictions"], "store vs Extra-P export",
                         QUANTILE_METRICS)
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_store_repetitions():
    """Runs repeated at a scale count by their median from a store as from its Extra-P export
    (before, the store's repetitions were points of their own and the two disagreed): jacobi
    at one rank, 4 sizes, each run twice."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for n in SIZES[:4]:
            for _rep in range(2):
                run = Run([JACOBI, str(n), "20"], 1, {"TARDY_STORE": store,
                                                     "TARDY_PARAMS": "n=%d" % n})
                try:
                    expect(run.rc == 0, "jacobi n=%d: exit %d %s" % (n, run.rc, run.err[-600:]))
                finally:
                    run.cleanup()
        offline, _err = predict_json(["--store", store, "--at", "n=192"])
        extrap = os.path.join(store, "extrap.txt")
        p = subprocess.run([TARDY, "export-extrap", "--store", store, "-o", extrap],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "export-extrap: %s" % p.stderr)
        back, _err = predict_json(["--extrap", extrap, "--at", "n=192"])
        expect(offline["source"]["runs"] == 8 and back["source"]["runs"] == 8,
               "runs: %s %s" % (offline["source"], back["source"]))
        expect(len(offline["predictions"]) > 10, "predictions: %s" % offline["predictions"])
        same_predictions(offline["predictions"], back["predictions"], "store vs Extra-P export",
                         QUANTILE_METRICS)
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_extrap_foreign():
    """An Extra-P file not written by tardy: every region/metric is predicted, also one with
    fewer repetitions than another (absent from the later repetitions' runs)."""
    path = tempfile.mktemp(suffix=".txt", prefix="extrap-")
    try:
        with open(path, "w") as f:
            f.write("PARAMETER p\nPOINTS 2 4 8 16 32\nMETRIC visits\nREGION solve\n")
            for p in (2, 4, 8, 16, 32):
                f.write("DATA %d\n" % (100 * p))
            f.write("METRIC time\nREGION solve\n")
            for p in (2, 4, 8, 16, 32):
                f.write("DATA %r %r %r\n" % (1 + 64.0 / p, 1.01 * (1 + 64.0 / p),
                                              1.005 * (1 + 64.0 / p)))
        out, _err = predict_json(["--extrap", path, "--at", "p=128"])
        got = by_metric(out["predictions"])
        time = got.get(("p=128", "solve/time"))
        want = 1.005 * (1 + 64 / 128.0)
        expect(time and abs(time["value"] - want) <= 0.01 * want, "solve/time at p=128: %s" % time)
        visits = got.get(("p=128", "solve/visits"))
        expect(visits and abs(visits["value"] - 12800) <= 1e-6 * 12800,
               "solve/visits at p=128 (one repetition where time has three): %s" % visits)
        out, _err = predict_json(["--extrap", path, "--at", "procs=128"], 3)
        expect("no run has the parameter procs (the runs have p)" in out.get("note", ""),
               "a misspelt parameter: %s" % out.get("note"))
        # four parameters that vary: no model stands for them (one ignoring p missed 4x)
        with open(path, "w") as f:
            pts = [(p, n, a, b) for p in (2, 4, 8, 16, 32) for n in (10, 20, 30, 40, 50)
                   for a in (1, 2, 3) for b in (5, 6, 7)]
            f.write("PARAMETER p n a b\nPOINTS %s\nREGION k\nMETRIC time\n" % " ".join(
                "(%d %d %d %d)" % t for t in pts))
            f.writelines("DATA %r\n" % (n * a * math.log2(p) + b) for p, n, a, b in pts)
        out, _err = predict_json(["--extrap", path, "--at", "p=64,n=50,a=3,b=7"], 3)
        expect(not out["predictions"] and "4 parameters vary (p, a, b, n) and a model takes at "
               "most 3" in out.get("note", ""), "four parameters: %s %s" % (
                   out["predictions"][:1], out.get("note")))
        open(path, "w").write("PARAMETER p\nPOINTS 2 4\nREGION r\nMETRIC m\nDATA 1\nDATA x\n")
        p = subprocess.run([TARDY, "predict", "--extrap", path, "--at", "p=8"],
                           capture_output=True, text=True)
        expect(p.returncode == 1 and "%s:6:" % path in p.stderr, "bad file: %s" % p.stderr)
    finally:
        os.unlink(path)


def test_extrap_counters():
    """PAPI counters and wait states go through the Extra-P export and back, each under its
    name (every per-rank metric tardy writes has one in predictions): sde_counters at
    1 to 4 ranks (its WORK counter grows with the rank; with "late" the last rank makes the
    others wait at a barrier, and incidental waits elsewhere differ from run to run, so some
    runs lack some rows) predicts the same from the store and from its export."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    try:
        for ranks in (1, 2, 3, 4):
            run = Run([binary("sde_counters"), "late"], ranks, {
                "TARDY_STORE": store, "TARDY_PAPI": WORK + "," + INMPI, "TARDY_WAITS": "1"})
            try:
                expect(run.rc == 0 and run.profile, "-n %d: exit %d %s" % (
                    ranks, run.rc, run.err[-600:]))
            finally:
                run.cleanup()
        offline, _err = predict_json(["--store", store, "--at", "p=8"])
        metrics = [q["metric"] for q in offline["predictions"]]
        for what in (WORK, "wait wait_at_barrier", "cause of wait_at_barrier",
                     "time waited in wait states per rank, max (s)"):
            expect(any(what in m for m in metrics), "no prediction of %s: %s" % (what, metrics))
        # every per-rank metric tardy writes has a name in predictions (wait_time had none)
        unnamed = [m for m in metrics if m.endswith(", max per rank")]
        expect(not unnamed, "per-rank metrics without a name: %s" % unnamed)
        extrap = os.path.join(store, "extrap.txt")
        p = subprocess.run([TARDY, "export-extrap", "--store", store, "-o", extrap],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "export-extrap: %s" % p.stderr)
        back, _err = predict_json(["--extrap", extrap, "--at", "p=8"])
        same_predictions(offline["predictions"], back["predictions"], "store vs Extra-P export",
                         QUANTILE_METRICS)
    finally:
        shutil.rmtree(store, ignore_errors=True)


# ---- runs of another parameter set --------------------------------------------------------

# the study the cases below add a run or a set of runs to: jacobi at 1 and 2 ranks, 3 sizes
STUDY = [(ranks, {"n": n}) for ranks in (1, 2) for n in (64, 128, 256)]


def param_store(raw, runs, scale=None):
    """A store of copies of raw (a profile's JSON text), one per (ranks, params) of runs in
    that order, each a second newer than the one before, the intervals' times n / 64 times
    the run's (times scale(params) when given): its directory and the files' paths. params
    None writes "params": null."""
    store = tempfile.mkdtemp(prefix="tardy-store-")
    paths = []
    for i, (ranks, params) in enumerate(runs):
        prof = json.loads(raw)
        prof["run"].update(ranks=ranks, params=params, run_id="params-%d" % i,
                           start_time="2026-01-01T00:%02d:%02d.000Z" % (i // 60, i % 60))
        grow = (params or {}).get("n", 64) if isinstance((params or {}).get("n"), int) else 64
        grow = grow / 64.0 * (scale(params) if scale else 1)
        for row in prof["intervals"]:
            for k in (0, 1, 3):  # sum, min, max
                row["time"][k] *= grow
        paths.append(os.path.join(store, "tardy-jacobi-%02d.json" % i))
        with open(paths[-1], "w") as f:
            json.dump(prof, f)
    return store, paths


def predict_store(store, target="n=1024"):
    """`tardy predict --json` on store: its document ({} where it failed) and stderr."""
    p = subprocess.run(["timeout", str(TIMEOUT), TARDY, "predict", "--store", store, "--at",
                        target, "--json"], capture_output=True, text=True)
    expect(p.returncode == 0 and "traceback" not in p.stderr, "tardy predict: exit %d, %s" % (
        p.returncode, p.stderr[-800:]))
    return json.loads(p.stdout), p.stderr


def test_other_parameter_set():
    """A run whose parameters are not the study's (TARDY_PARAMS forgotten, an extra key, a
    text value, "params": null) crashed the default policy in scale_info, which compared the
    first point's parameters with the others' unchecked. The run is left out, a warning naming
    it and why, and the study's six runs predict as they do alone; the newest such run does
    not decide the parameter set, the set most runs share does."""
    raw = one_rank_profile("jacobi", ["32", "5"])
    alone, _paths = param_store(raw, STUDY)
    try:
        want, _err = predict_store(alone)
        lacks = ("without the parameter n, which the 6 others have (run without "
                 "TARDY_PARAMS=n=...)")
        for odd, why in (({}, lacks), (None, lacks),
                         ({"n": 128, "iters": 10}, "with the parameter iters, which the 6 "
                                                   "others lack"),
                         ({"n": "large"}, "with text for n (n=large) where the 6 others have "
                                          "a number")):
            store, paths = param_store(raw, STUDY + [(2, odd)])
            try:
                doc, err = predict_store(store)
                expect("leaving out 1 run of jacobi in %s: %s, such as %s" % (
                    store, why, paths[-1]) in err, "%s: %s" % (odd, err[-800:]))
                expect(doc.get("source", {}).get("runs") == 6, "%s: %s" % (odd, doc.get("source")))
                same_predictions(want["predictions"], doc["predictions"], "params %s" % odd)
            finally:
                shutil.rmtree(store, ignore_errors=True)
    finally:
        shutil.rmtree(alone, ignore_errors=True)


def test_text_parameter_values():
    """Runs at two values of a text parameter (mode=fast, then mode=slow, 10x slower) are two
    configurations, not one series: pooled, their fits had 100% errors. The runs of the
    newest run's value predict, as they do alone; the others are left out, one warning
    naming how many and why."""
    raw = one_rank_profile("jacobi", ["32", "5"])
    def mode(m):
        return [(r, dict(x, mode=m)) for r, x in STUDY]
    slow = lambda params: 10 if params.get("mode") == "slow" else 1
    alone, _paths = param_store(raw, mode("slow"), slow)
    both, paths = param_store(raw, mode("fast") + mode("slow"), slow)
    try:
        want, _err = predict_store(alone)
        doc, err = predict_store(both)
        expect("leaving out 6 runs of jacobi in %s: with mode=fast where the 6 others have "
               "mode=slow, such as %s" % (both, paths[0]) in err, err[-800:])
        expect(doc.get("source", {}).get("runs") == 6, doc.get("source"))
        same_predictions(want["predictions"], doc["predictions"], "mode=slow")
    finally:
        shutil.rmtree(alone, ignore_errors=True)
        shutil.rmtree(both, ignore_errors=True)


def test_parameter_not_number_or_text():
    """A stored run whose parameter is a list, an object, null or a boolean (profile_read
    reads each as empty text) gave a zero-width interval and n dropped from the model: it is
    skipped with a warning naming its file, as other malformed files are."""
    raw = one_rank_profile("jacobi", ["32", "5"])
    alone, _paths = param_store(raw, STUDY)
    try:
        want, _err = predict_store(alone)
        for bad in ([1, 2], {"a": 1}, None, True):
            store, paths = param_store(raw, STUDY[:3] + [(2, {"n": bad})] + STUDY[3:])
            try:
                doc, err = predict_store(store)
                expect("skipping %s: run.params.n is empty or neither a number nor text" %
                       paths[3] in err, "%s: %s" % (bad, err[-800:]))
                expect(doc.get("source", {}).get("runs") == 6, "%s: %s" % (bad, doc.get("source")))
                same_predictions(want["predictions"], doc["predictions"], "n = %s" % bad)
            finally:
                shutil.rmtree(store, ignore_errors=True)
    finally:
        shutil.rmtree(alone, ignore_errors=True)


def test_finalize_other_parameter_set():
    """At MPI_Finalize the job's own parameter set decides: a job run without TARDY_PARAMS
    beside a study of n crashed the policy (its note "the Lua policy failed"); now the study's
    runs are left out, a warning saying the job lacks n, and the note says too few runs."""
    raw = one_rank_profile("jacobi", ["32", "5"])
    store, _paths = param_store(raw, STUDY)
    try:
        run = Run([JACOBI, "32", "5"], 1, {"TARDY_STORE": store, "TARDY_PREDICT": "p=4"})
        try:
            expect(run.rc == 0 and run.profile, "exit %d %s" % (run.rc, run.err[-600:]))
            note = run.profile.get("prediction_note", "")
            expect("leaving out 6 runs of jacobi in %s: with the parameter n, which this run "
                   "lacks" % store in run.err, run.err[-800:])
            expect("failed" not in note and "too few runs" in note, note)
        finally:
            run.cleanup()
    finally:
        shutil.rmtree(store, ignore_errors=True)


def export_extrap(store, out):
    return subprocess.run(["timeout", str(TIMEOUT), TARDY, "export-extrap", "--store", store,
                           "-o", out], capture_output=True, text=True)


def test_export_parameter_sets():
    """export-extrap wrote only PARAMETER p where one run lacked n (n = 64, 128, 256 became
    repetitions of one point), and a text parameter as 0 in every point (fast and slow runs
    merged): the run without n is left out with a warning naming it, and of a text parameter
    the runs of the newest run's value are written, without it (Extra-P's format holds
    numbers), a warning saying so; the file predicts as its store."""
    raw = one_rank_profile("jacobi", ["32", "5"])
    lacking, paths = param_store(raw, STUDY + [(2, {})])
    modes, _paths = param_store(raw, [(r, dict(x, mode="fast")) for r, x in STUDY] +
                                [(r, dict(x, mode="slow")) for r, x in STUDY])
    try:
        out = os.path.join(lacking, "x.txt")
        p = export_extrap(lacking, out)
        text = open(out).read() if p.returncode == 0 else ""
        expect(text.startswith("PARAMETER p n\nPOINTS (1 64) (1 128) (1 256) (2 64) (2 128) "
                               "(2 256)\n"), "%s %s" % (text[:200], p.stderr))
        expect("leaving out 1 run of jacobi in %s: without the parameter n" % lacking in
               p.stderr and paths[-1] in p.stderr and "6 runs, " in p.stderr, p.stderr)
        out = os.path.join(modes, "x.txt")
        p = export_extrap(modes, out)
        text = open(out).read() if p.returncode == 0 else ""
        expect(text.startswith("PARAMETER p n\nPOINTS (1 64) (1 128)"), "%s %s" % (
            text[:200], p.stderr))
        expect("leaving out 6 runs of jacobi in %s: with mode=fast" % modes in p.stderr and
               "mode (text: mode=slow in every run written) is left out of the file: Extra-P's "
               "format holds numbers" in p.stderr, p.stderr)
        store, _err = predict_store(modes)
        back, _err = predict_json(["--extrap", out, "--at", "n=1024"])
        same_predictions(store["predictions"], back["predictions"], "store vs its export",
                         QUANTILE_METRICS)
    finally:
        shutil.rmtree(lacking, ignore_errors=True)
        shutil.rmtree(modes, ignore_errors=True)


def test_export_write_error():
    """export-extrap -o /dev/full said "6 runs, 29 regions written" and exited 0: a write error
    exits 1 and names the file (where the machine has no /dev/full, as some containers, a
    file that cannot grow: ulimit -f 0, SIGXFSZ ignored; never a file made in /dev)."""
    raw = one_rank_profile("jacobi", ["32", "5"])
    store, _paths = param_store(raw, STUDY)
    try:
        if stat.S_ISCHR(os.stat("/dev/full").st_mode if os.path.exists("/dev/full") else 0):
            out, limit = "/dev/full", ""
        else:
            out, limit = os.path.join(store, "x.txt"), "ulimit -f 0; "
        p = subprocess.run(["bash", "-c", 'trap "" XFSZ; %sexec "$@"' % limit, "-", TARDY,
                            "export-extrap", "--store", store, "-o", out],
                           capture_output=True, text=True)
        expect(p.returncode == 1 and "tardy export-extrap: writing %s failed" % out in p.stderr
               and "regions written" not in p.stderr, "-o %s: exit %d: %s" % (
                   out, p.returncode, p.stderr))
    finally:
        shutil.rmtree(store, ignore_errors=True)


MIXED_POINTS = r"""
-- selection.best_model on points whose parameters differ: one without n, one whose n is text,
-- one with another parameter (first, or after points with a number n): no error (a model, or
-- none and the reason); n is no parameter to chain along there, p is
local best_model = tardy.require("selection").best_model
tardy.policy("mixed_points", function(ctx)
  local families = {}
  for _, name in ipairs(tardy.families()) do
    families[#families + 1] = {name = name, spec = tardy.get_family(name)}
  end
  local function points(odd, at)
    local pts = {}
    for i, p in ipairs({1, 2, 4, 8, 16, 32}) do
      pts[i] = {x = {p = p, n = 64}, y = 5 + 3 * p, reps = {5 + 3 * p, 5.1 + 3 * p}}
    end
    pts[at].x = odd
    return pts
  end
  for _, odd in ipairs({{p = 64}, {p = 64, n = "big"}, {p = 64, n = 64, iters = 3}}) do
    for _, at in ipairs({1, 6}) do
      odd.p = at == 1 and 0.5 or 64
      local ok, m, why = pcall(best_model, families, points(odd, at))
      assert(ok and (m or type(why) == "string"), tostring(m))
      assert(not m or #m.info.names == 1 and m.info.names[1] == "p",
             m and table.concat(m.info.names, ","))
    end
  end
  return {{target = {p = 64}, metric = "checked", value = 1, family = "api", model = "-"}}
end)
"""


def test_mixed_points():
    p = run_policy(MIXED_POINTS, "mixed_points", "p", "p=64")
    expect(p.returncode == 0 and json.loads(p.stdout)["predictions"][0]["metric"] == "checked",
           p.stdout + p.stderr[-800:])


room.case("lua/scalaextrap reproduces seed 000", test_seed000)
room.case("lua/one-parameter families: every refusal named", test_one_parameter_refusals)
room.case("lua/pmnf recovers laws 4x beyond the data", test_recovery)
for _policy, _needle in (("runtime_error", None), ("endless", None), ("memory_bomb", None),
                         ("garbage", None), ("nan_value", None),
                         ("undefined_global", "no_such_variable"),
                         ("no_such_library", "no library 'no_such_library'"),
                         ("library_path", "'../policies/default' is not a library name"),
                         ("no_such_policy", "no policy named 'no_such_policy'"),
                         ("coverage_500", "coverage 500 is not a percent between 0 and 100"),
                         ("negative_uncertainty", "uncertainty -1 is below 0 (a percent)"),
                         ("interval_reversed", "low 3 is above high"),
                         ("ends_without_coverage", "low and high without coverage (a percent)"),
                         ("fit_error_text", "fit_error is a string, not a number"),
                         ("note_number", "note is a number, not a string")):
    room.case("lua/broken script: %s" % _policy,
              lambda p=_policy, n=_needle: test_broken_script(p, n))
room.case("lua/broken script: syntax error", lambda: test_broken_script(
    "syntax", "syntax_error.lua:3:", "tests/lua/syntax_error.lua"))
for _policy in ("runtime_error", "endless", "memory_bomb", "garbage", "nan_value"):
    room.case("lua/failing script in a job: %s" % _policy,
              lambda p=_policy: test_broken_in_job(p))
room.case("lua/script failing its check at MPI_Init", test_broken_at_init)
room.case("lua/TARDY_PREDICT mistyped: named, the job unchanged", test_mistyped_target_in_job)
room.case("lua/store: finalize, offline and Extra-P predictions agree", test_store_predictions)
room.case("lua/store: repeated runs by their median, from the store as from its export",
          test_store_repetitions)
room.case("lua/Extra-P file as input", test_extrap_foreign)
room.case("lua/Extra-P export carries counters and wait states", test_extrap_counters)
room.case("lua/docs example", test_docs_example)
room.case("lua/a user's policy on the shipped libraries", test_libraries)
room.case("lua/API: every statistic of every row", test_api_metrics)
room.case("lua/API: PAPI counters of every row", test_api_counters)
room.case("lua/API: quantiles within the extremes despite rounding", test_api_quantile_rounding)
room.case("lua/API: quantiles at 2 ranks: the median is the mean of the two -n 2",
          test_api_quantile_two_ranks)
room.case("cli/tardy predict: runs of another parameter set left out, named",
          test_other_parameter_set)
room.case("cli/tardy predict: runs at another value of a text parameter left out",
          test_text_parameter_values)
room.case("cli/tardy predict: a stored parameter neither number nor text: the run skipped",
          test_parameter_not_number_or_text)
room.case("lua/a job without the store's parameters: the store's runs left out at finalize",
          test_finalize_other_parameter_set)
room.case("cli/tardy export-extrap: runs of another parameter set, text parameters",
          test_export_parameter_sets)
room.case("cli/tardy export-extrap: a write error exits 1", test_export_write_error)
room.case("lua/selection: points whose parameters differ", test_mixed_points)
