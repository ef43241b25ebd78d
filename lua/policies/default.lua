-- The default prediction policy. It does not fit one curve to a total (seed 000: totals mix
-- parts that scale differently). It models every compute interval and every MPI call path
-- separately, models how the spread across ranks changes, and combines:
--   mean per-rank compute = sum over intervals of their predicted mean time per rank
--   max (90th, 50th percentile) per-rank compute = that sum x the predicted ratio of the
--   max (quantile) to the mean of per-rank compute
-- It also predicts counts, time, bytes and memory per call path, every per-rank metric of the
-- program (not those of how the run was measured and placed: clocks, hosts), and the rows of
-- any other kind (wait patterns, counters) the profile holds. Each series, one
-- point per scale (the median of its runs), is fitted with every registered family that can
-- model it; a family that prevails (constant: no change beyond the noise between repetitions)
-- wins where it offers a model, else, of the models that do not miss the runs beyond the noise
-- between their repetitions, the family that predicts larger scales best (the mean of its
-- leave-one-out error and its forward-chaining error: the largest scale of each parameter
-- predicted by the family fitted on the smaller ones). Every prediction carries its family,
-- model, fit error, uncertainty, an 80% interval (low, high, coverage) and whether the target
-- lies outside the fitted range; where the runs cannot support a number at a target the note
-- says why instead. The series, the choice of model, the interval and the names are the
-- shipped libraries of lua/lib/ (tardy.require).

local TOP = 3     -- intervals, call paths and rows of other kinds reported one by one
-- the statistics of rows of other kinds that are durations (docs/profile-schema.md): their
-- metrics say "(s)", as the times of call paths and intervals do, and a page draws them so
local SECONDS = {time = true, late = true, cost = true}

local S = tardy.require("series")
local finite, scale_key, distinct, range, extrapolates, uncombined = S.finite, S.scale_key,
  S.distinct, S.range, S.extrapolates, S.uncombined
local index_runs, series, get, reference, keys_of = S.index_runs, S.series, S.get, S.reference,
  S.keys_of
local other_kinds, stats_of, canonical, newest = S.other_kinds, S.stats_of, S.canonical, S.newest
local crowded = S.crowded
local best_model = tardy.require("selection").best_model
local I = tardy.require("interval")
local COVERAGE, interval = I.COVERAGE, I.interval
local N = tardy.require("names")
local RANK_NAMES, UNITS, setting, short, label = N.RANK_NAMES, N.UNITS, N.setting, N.short, N.label
local rank_max = N.rank_max

tardy.policy("default", function(ctx)
  local kept = newest(ctx.runs)
  local runs, out, notes = canonical(kept), {}, {}
  if #runs == 0 then return {note = "no runs to predict from"} end
  if #runs < #ctx.runs then
    notes[1] = string.format("the newest %d of %d runs are used", #runs, #ctx.runs)
  end
  local families = {}
  for _, name in ipairs(tardy.families()) do
    families[#families + 1] = {name = name, spec = tardy.get_family(name)}
  end
  local index, params = index_runs(runs), {}
  for i, run in ipairs(runs) do params[i] = run.params end
  local function note(text)
    for _, n in ipairs(notes) do if n == text then return end end
    notes[#notes + 1] = text
  end

  -- The model of one series at target: pts, model (or nil and the reason). id names the
  -- series; make() builds its points, once; the model is fitted once per set of points a
  -- target uses (tardy.points_for: all of them; the runs at the target's value of a
  -- parameter they hold at two values only; without a parameter that changed with another
  -- in every run).
  local memo, built = {}, {}
  local function fitted(target, id, make)
    built[id] = built[id] or make()
    local pts, held = tardy.points_for(built[id], target)
    if not pts then return built[id], nil, held end
    local key = id .. "|" .. held
    local e = memo[key]
    if not e then
      local model, reason = best_model(families, pts)
      e = {pts = pts, model = model, why = reason}
      memo[key] = e
    end
    return e.pts, e.model, e.why
  end
  -- the series of a statistic's field of the rows key over the runs
  local function stat(key, name, field)
    return key .. "|" .. name .. "|" .. field, function()
      return series(params, index, key, get(name, field))
    end
  end

  -- the model's value at target, or nil and why not: where it holds none (model.outside), or
  -- where its predict refuses the target (PMNF's at n = 0: it takes logs and powers of the
  -- parameters), which ends this prediction, not the others
  local function value_at(model, target)
    local outside = model.outside and model.outside(target)
    if outside then return nil, outside end
    local ok, v = pcall(model.predict, target)
    if not ok then return nil, (tostring(v):gsub("^[^:]*:%d+: ", "")) end
    return v
  end

  -- How many times the high end of an interval at the normal quantile (zlo..zhi around v)
  -- exceeds its low end, where that is beyond 100 (no number then), else nil. An interval
  -- reaching 0 (a series no run measured below 0, bounded there) is judged by its high end
  -- over the value: a wait's cause at jacobi's Allreduce, its runs at 2 ranks 1.8e-5 to
  -- 6.2e-4 s, got 1.7e-4 s at n = 2048, "0..6.98", 40,000x the value.
  local function disagreement(v, zlo, zhi)
    local base = zlo > 0 and zlo or v
    if base > 0 and zhi / base > 100 then return zhi / base end
  end
  -- a disagreement in words: "by 133x", or without bound where a model's end is infinite
  local function times(ratio)
    return ratio == math.huge and "without bound" or string.format("by %.0fx", ratio)
  end

  -- one prediction of a series; returns value, model, points, low, high (nil and the reason
  -- if omitted: no model, or data that cannot support a number at the target). least: the
  -- smallest value the metric can take, if it has one (the max over ranks over their mean
  -- is at least 1: models of other families fitting the noise put its interval at 0.19..5.9);
  -- a series no run measured below 0 (times, counts, bytes) is not predicted below 0 either
  -- (jacobi's point-to-point messages at one rank: -6.2 from 215 - 222/p, and a wait's time
  -- -0.33..0.22 s from the near-best models), and a value within rounding of 0 is 0 (the
  -- count 40 - 40/p at p=1 printed 7.1e-15)
  local function predict(target, metric, id, make, least, most)
    local pts, model, why = fitted(target, id, make)
    if not model then return nil, why end
    local v, refused = value_at(model, target)
    if not finite(v) then
      return nil, "no prediction at " .. scale_key(target) .. ": " ..
        (refused or "the model gives no finite value there")
    end
    local lo, hi, zlo, zhi = interval(model, pts, target, v, true)
    local all_positive, none_negative, largest = true, true, 0
    for _, pt in ipairs(pts) do
      all_positive, none_negative = all_positive and pt.y > 0, none_negative and pt.y >= 0
      largest = math.max(largest, math.abs(pt.y))
    end
    if none_negative then least = math.max(least or 0, 0) end
    local function bounded(x)
      x = math.abs(x) <= 1e-9 * largest and 0 or x
      x = least and math.max(x, least) or x
      return most and math.min(x, most) or x
    end
    v, lo, hi, zlo, zhi = bounded(v), bounded(lo), bounded(hi), bounded(zlo), bounded(zhi)
    if all_positive and v <= 0 then
      -- inside the runs' range it is the model that fails there, not the trend
      return nil, "no prediction at " .. scale_key(target) .. (extrapolates(pts, target) and
        ": the trend of the runs does not continue there (the best model falls to zero or below)"
        or ": the best model, chosen for how it predicts larger scales, falls to zero or " ..
        "below there, inside the runs' range")
    end
    -- also where some runs are 0 (no waits at one rank): a wait's time that is 0.02 s in one
    -- run and 0.9 s in its twin got 0.04 at 12 ranks, "4.9e-06..328". Judged on the interval
    -- at the normal quantile: Student's t widens it for how little a few scales tell of the
    -- error, not for models that disagree (judged on it, 16 values of fresh studies of
    -- bucketsort and halo3d and 6 of the corpus lost their number)
    local apart_by = disagreement(v, zlo, zhi)
    if apart_by then
      return nil, string.format("no prediction at %s: the models that fit the runs disagree " ..
        "%s there (too few scales, noise between the runs, or a trend that reverses)",
        scale_key(target), times(apart_by))
    end
    local capped = most and v == most and string.format(", at most %g", most) or ""
    out[#out + 1] = {target = target, metric = metric, value = v, family = model.family,
      model = model.formula .. capped, fit_error = model.fit_error, uncertainty = model.uncertainty,
      extrapolated = extrapolates(pts, target), low = lo, high = hi, coverage = COVERAGE}
    return v, model, pts, lo, hi
  end
  -- the metrics without a number, by reason: one note per reason, at the end (runs at 1 and
  -- 2 ranks asked for p=64 would otherwise repeat the same reason for every metric)
  local unsupported, reasons = {}, {}
  local function each(target, metric, id, make)
    local v, why = predict(target, metric, id, make)
    if v then return end
    if not unsupported[why] then unsupported[why], reasons[#reasons + 1] = {}, why end
    table.insert(unsupported[why], metric)
  end

  local scales = {}
  for i, x in ipairs(params) do scales[i] = {x = x} end
  local nscales = distinct(scales)
  if nscales < 3 then
    return {note = string.format("too few runs: predictions need runs at 3 different scales, " ..
      "there %s %d (%d run%s)", nscales == 1 and "is" or "are", nscales, #runs,
      #runs == 1 and "" or "s")}
  end

  -- runs on hosts with more ranks than CPUs: their times hold the ranks' turns for a CPU
  -- (halo3d's MPI_Init at 1, 2 and 4 ranks on 2 CPUs, 0.03, 0.03 and 0.12 s, became
  -- c + a·p³·log2 p, 0.97 s at 8 ranks where 8 on those CPUs took 0.27 s); the note says so,
  -- the numbers stay those of the runs
  local crowded_at, most = crowded(runs, index)
  if crowded_at then
    note(string.format("ranks outnumber CPUs in the runs at %s (up to %.3g ranks per online " ..
      "CPU): their times include the ranks' turns for a CPU, so times predicted from them are " ..
      "those of hosts as crowded, not of a CPU for every rank", table.concat(crowded_at, ", "),
      most))
  end

  local intervals = keys_of(index, "interval", function(m) return m.time and m.time.sum end)
  local calls = keys_of(index, "mpi", function(m) return m.time and m.time.sum end)
  local ranks = keys_of(index, "rank", function() return 0 end)

  -- Parameters a target leaves out keep the value of the current run (at finalize), else of
  -- the latest run: "p=1024" means this program as it was run, at 1024 ranks. An Extra-P
  -- file's runs have no start: its last point (cli/html_store.c draws its curves there).
  local latest = runs[1]
  for _, run in ipairs(runs) do
    if run.current or (not latest.current and run.start > latest.start) then latest = run end
  end
  if latest.start == "" then latest = kept[#kept] end
  local function complete(target)
    local t = {}
    for k, v in pairs(latest.params) do
      if type(v) == "number" then t[k] = v end
    end
    for k, v in pairs(target) do t[k] = v end
    return t
  end

  -- the hardware or software counters a row has (TARDY_PAPI; seed 004: cache misses per
  -- function), per rank: mean and max
  local function counters(target, key, name)
    local m = reference(index)[key]
    for _, c in ipairs(m.counters or {}) do
      if m[c].sum > 0 then
        each(target, name .. ": " .. c .. " per rank, mean", stat(key, c, "mean"))
        each(target, name .. ": " .. c .. " per rank, max", stat(key, c, "max"))
      end
    end
  end

  -- A sum at target of the models of its parts, each a series of its own (seed 000: parts
  -- that scale differently break every single model of their sum). parts: {id, make, of},
  -- of(i) the part's value in run i. The sum's interval adds the parts' half-widths in
  -- quadrature (taken as independent); the noise draws for the parts of at least 5% of the sum
  -- (at most 20: the cost stays that of a few series with a thousand parts), the others'
  -- intervals hardly move the sum's; beyond: what the sum is part of adds to it for that
  -- share. Returns {value, below and above (squared half-widths), var (squared
  -- uncertainties), n (parts with a model), missing, why, fit_error, fit (the fitted sum by
  -- run)}.
  local sum_fits = {}
  local function sum_of(target, parts, beyond)
    local got, total = {}, beyond or 0
    for j, part in ipairs(parts) do
      local pts, model, why = fitted(target, part.id, part.make)
      local v, refused
      if model then v, refused = value_at(model, target) end
      got[j] = {pts = pts, model = model, v = v, why = why or refused}
      if finite(v) then total = total + math.max(v, 0) end
    end
    local s = {value = 0, below = 0, above = 0, var = 0, n = 0, missing = 0}
    local models = {}
    for j, g in ipairs(got) do
      if finite(g.v) then
        local lo, hi, zlo, zhi = interval(g.model, g.pts, target, g.v, g.v >= 0.05 * total)
        local v = math.max(g.v, 0)
        -- a part that would have no number of its own and is half the sum or more leaves the
        -- sum without one: the sum is mostly that part (jacobi's Allreduce at 1, 2 and 4
        -- crowded ranks, "disagree by 352816x" at p = 8, stood in "MPI time per rank" as 9.9
        -- of 11.2 s). A smaller one widens the sum's interval by its own: refusing the sum
        -- for any part of 5% took the compute time of jacobi's runs at 1, 2 and 4 ranks, for
        -- the interval from the last Allreduce to MPI_Finalize
        local by = disagreement(v, math.max(zlo, 0), zhi)
        if by and v >= 0.5 * total and not s.refused then
          s.refused = string.format("%s: the models that fit the runs disagree %s there",
            parts[j].name or parts[j].id, times(by))
        end
        s.below, s.above = s.below + (v - math.max(lo, 0)) ^ 2, s.above + (math.max(hi, 0) - v) ^ 2
        s.value, s.n = s.value + v, s.n + 1
        s.var = s.var + (v * (finite(g.model.uncertainty) and g.model.uncertainty or 0) / 100) ^ 2
        models[j] = g.model
      else
        s.missing, s.why = s.missing + 1, s.why or g.why
      end
    end
    -- fit error: the parts' models against each run's parts, over the runs the target's points
    -- come from (tardy.points_for: at 1 and 2 ranks, a target at 2 is fitted on the runs at
    -- 2), in a fixed order: the same sum every time. It depends on those runs and the parts
    -- without a model, not on the target: once per such set (sum_fits), where a page's curve
    -- asks 24 targets of a sum of a thousand parts (a quarter of the time)
    local used = {}
    for i, x in ipairs(params) do used[i] = {x = x, y = i} end
    local runs, held = tardy.points_for(used, target)
    local without = {}
    for j in ipairs(parts) do if not models[j] then without[#without + 1] = j end end
    local key = (held or "") .. "|" .. table.concat(without, ",")
    sum_fits[parts] = sum_fits[parts] or {}
    local e = sum_fits[parts][key]
    if not e then
      local actual, fit = {}, {}
      e = {by_run = {}}
      for _, pt in ipairs(runs or {}) do
        local i, a, f = pt.y, 0, 0
        for j, part in ipairs(parts) do
          if models[j] then
            a = a + (part.of(i) or 0)
            f = f + math.max(models[j].predict(params[i]), 0)
          end
        end
        actual[#actual + 1], fit[#fit + 1], e.by_run[i] = a, f, f
      end
      e.error = tardy.smape(actual, fit)
      sum_fits[parts][key] = e
    end
    s.fit, s.fit_error = e.by_run, e.error
    return s
  end

  -- the parts "time per rank, mean" of the rows keys, once per keys (a sum's fit is kept per
  -- parts: sum_fits)
  local part_lists = {}
  local function parts_of(keys)
    if part_lists[keys] then return part_lists[keys] end
    local parts = {}
    part_lists[keys] = parts
    for j, key in ipairs(keys) do
      local id, make = stat(key, "time", "mean")
      parts[j] = {id = id, make = make, name = short(key), of = function(i)
        local m = index[i][key]
        return m and m.time and m.time.mean
      end}
    end
    return parts
  end

  -- The wall time per rank as the sums compute and mpi plus the rest: each run's wall time
  -- less its compute and MPI time per rank (MPI_Finalize until tardy collects, tardy's own
  -- work), a part of its own; nil where it has no model.
  local function with_rest(target, compute, mpi)
    local function rest(i)
      local r = index[i]
      local w, c, m = r["rank:wall"], r["rank:compute"], r["rank:mpi"]
      if not (w and c and m and w.value and c.value and m.value) then return nil end
      return w.value.mean - c.value.mean - m.value.mean
    end
    local r = sum_of(target, {{id = "rest|wall", name = "the rest", of = rest, make = function()
      local p = {}
      for i, x in ipairs(params) do
        local v = rest(i)
        if finite(v) then p[#p + 1] = {x = x, y = v} end
      end
      return tardy.medians(p)
    end}}, compute.value + mpi.value)
    if r.n == 0 then return nil end
    local s = {value = compute.value + mpi.value + r.value, refused = r.refused}
    for _, k in ipairs({"below", "above", "var"}) do s[k] = compute[k] + mpi[k] + r[k] end
    local actual, fit = {}, {}
    s.fit = {}
    for i = 1, #params do -- in a fixed order: the same sum every time
      local w = index[i]["rank:wall"]
      if compute.fit[i] and mpi.fit[i] and r.fit[i] and w and w.value then
        s.fit[i] = compute.fit[i] + mpi.fit[i] + r.fit[i]
        actual[#actual + 1], fit[#fit + 1] = w.value.mean, s.fit[i]
      end
    end
    s.fit_error = tardy.smape(actual, fit)
    return s
  end

  -- a model's value at the scale of run i, or nil where it refuses that scale
  local function at_run(m, i)
    local ok, v = pcall(m.predict, params[i])
    return ok and finite(v) and v or nil
  end
  -- the ends of a sum's interval (a time: not below 0)
  local function sum_ends(s)
    return math.max(s.value - math.sqrt(s.below), 0), s.value + math.sqrt(s.above)
  end
  -- two intervals (low, high, value) that do not meet, by more than a rounding's worth
  local function apart(alo, ahi, a, blo, bhi, b)
    return math.max(alo - bhi, blo - ahi) > 0.01 * math.max(a, b)
  end

  -- The total of a sum s fitted directly as one series (the rows rank's mean), in the shape
  -- of a sum (its model named in direct; actual: the runs' totals of its fit), over the runs
  -- of s's fit; nil where it has no number at target (no model, none above 0, or models
  -- that disagree beyond 100x).
  local function fitted_directly(target, s, rank)
    local pts, m = fitted(target, stat(rank, "value", "mean"))
    local v = m and value_at(m, target)
    if not finite(v) then return nil end
    local lo, hi, zlo, zhi = interval(m, pts, target, v, true)
    if v <= 0 or disagreement(v, math.max(zlo, 0), zhi) then return nil end
    lo = math.max(lo, 0)
    local actual, direct, by_run = {}, {}, {}
    for i = 1, #params do -- in a fixed order, over the runs of the sum's fit
      local r, d = index[i][rank], at_run(m, i)
      if s.fit[i] and r and r.value and d then
        by_run[i] = math.max(d, 0)
        actual[#actual + 1], direct[#direct + 1] = r.value.mean, by_run[i]
      end
    end
    local u = finite(m.uncertainty) and m.uncertainty or 0
    return {value = v, below = (v - lo) ^ 2, above = (hi - v) ^ 2, var = (v * u / 100) ^ 2,
            n = s.n, missing = s.missing, fit = by_run, fit_error = tardy.smape(actual, direct),
            direct = m.formula, actual = actual}
  end

  -- A sum s of parts against the total fitted directly: where their intervals do not meet and
  -- the sum misses the runs by more than 20% and twice the total, the parts' models do not
  -- follow them, and the total's model stands for the sum (returned in its place; else s).
  -- Measured here: jacobi and halo3d at 1, 2 and 4 ranks on 2 CPUs, n held out at its
  -- largest, two studies each: the MPI time at 4 ranks, 25-37x that at 2, was 87-90% low as
  -- the sum of its call paths (misses of 56-58% at the runs) and 14-41% as one series
  -- (16-22%); six studies at 1 and 2 ranks unchanged. Else a sum with a part that has no
  -- number (s.refused) has none either (nil): not the series fitted directly, which jacobi's
  -- crowded runs gave 0.068 s at p = 2, n = 2048 where three runs took 0.22-0.49 s (the sum
  -- with the part 0.19 s, 0.045..0.64); that is a row of its own.
  local function settle(target, s, rank, what)
    local d = reference(index)[rank] and fitted_directly(target, s, rank)
    local function ends(x) return string.format("%.3g s, %.3g..%.3g", x.value, sum_ends(x)) end
    local function stays()
      if not s.refused then return s end
      note(string.format("target %s: %s: no prediction as the sum of its parts (%s)",
        scale_key(target), what, s.refused))
    end
    if not d then return stays() end
    local slo, shi = sum_ends(s)
    local dlo, dhi = sum_ends(d)
    if not apart(dlo, dhi, d.value, slo, shi, s.value) then return stays() end
    local sums = {}
    for i = 1, #params do
      if d.fit[i] then sums[#sums + 1] = s.fit[i] end
    end
    local es = tardy.smape(d.actual, sums)
    -- a sum that follows its runs stays (halo3d at 1 and 2 ranks, n = 64: the sum of wall
    -- time's parts 5.1% off the runs, fitted directly 4.0%, and the sum the closer, 3% to 19%)
    if not (es > 20 and es > 2 * d.fit_error) then return stays() end
    note(string.format("target %s: %s: the sum of its parts (%s) misses the runs by %.1f%%, " ..
      "the series fitted directly (%s) by %.1f%%, and their intervals do not meet: its rows " ..
      "are those of the series fitted directly (runs whose parts no model follows: crowded, " ..
      "or noisy)", scale_key(target), what, ends(s), es, ends(d), d.fit_error))
    return d
  end

  -- how the sum s times the ratio's model m fits the runs' statistic field of rank (their
  -- product is the row's model: the ratio's own fit, 0.1% for halo3d's MPI time per rank,
  -- said nothing of the sum's 48.5%)
  local function product_fit(s, m, rank, field)
    local actual, fit = {}, {}
    for i = 1, #params do -- in a fixed order: the same sum every time
      local r, v, ratio = index[i][rank], s.fit[i], at_run(m, i)
      if v and ratio and r and r.value and r.value[field] then
        actual[#actual + 1], fit[#fit + 1] = r.value[field], v * ratio
      end
    end
    return tardy.smape(actual, fit)
  end

  -- A sum's row (name, mean), and for each statistic q of the ranks ({field, words, least},
  -- in rising order) the sum times the predicted ratio of that statistic to the mean over the
  -- ranks of the rows rank (what: its name in the ratio's row), at least the ratio of the
  -- statistic before it (each ratio fitted on its own, jacobi at 1 and 2 ranks, n = 128..384,
  -- gave at n = 768 a 90th percentile of 0.74 times the mean from 1.04 - 6.7e-10·n³, below
  -- the median and the max, both 1) and at most p, as no rank's value exceeds the sum of all
  -- (halo3d at 1, 2 and 4 crowded ranks gave at p = 16 a max of 36 times the mean); the
  -- ratio's interval and the sum's added as relative half-widths.
  local function report_sum(target, s, ext, name, what, rank, model, short_model, quantiles)
    if s.direct then model, short_model = "fitted directly: " .. s.direct, "fitted directly" end
    local u = s.value > 0 and 100 * math.sqrt(s.var) / s.value or 0
    local low, high = sum_ends(s)
    out[#out + 1] = {target = target, metric = name .. ", mean (s)", value = s.value,
      family = "default", model = model, fit_error = s.fit_error, uncertainty = u,
      extrapolated = ext, low = low, high = high, coverage = COVERAGE}
    local rlo = s.value > 0 and math.sqrt(s.below) / s.value or 0
    local rhi = s.value > 0 and math.sqrt(s.above) / s.value or 0
    local below = nil -- the ratio of the statistic before
    for _, q in ipairs(quantiles) do
      local least = q[3]
      if below then least = math.max(least or below, below) end
      local ratio, m, pts, rl, rh = predict(target, "spread of " .. what .. " (" .. q[2] ..
        " / mean)", "spread|" .. rank .. "|" .. q[1], function()
          return series(params, index, rank, function(r)
            local v = r.value
            return v and v.mean > 0 and v[q[1]] and v[q[1]] / v.mean or nil
          end)
        end, least, target.p)
      below = ratio or below
      if ratio then
        local ur = finite(m.uncertainty) and m.uncertainty or 0
        out[#out + 1] = {target = target, metric = name .. ", " .. q[2] .. " (s)",
          value = s.value * ratio, family = "default", model = short_model .. " x spread",
          fit_error = product_fit(s, m, rank, q[1]), uncertainty = math.sqrt(u * u + ur * ur),
          extrapolated = ext or extrapolates(pts, target),
          low = s.value * ratio * math.max(1 - math.sqrt(rlo ^ 2 + (1 - rl / ratio) ^ 2), 0),
          high = s.value * ratio * (1 + math.sqrt(rhi ^ 2 + (rh / ratio - 1) ^ 2)),
          coverage = COVERAGE}
      end
    end
  end

  -- The max over the ranks two ways: the sum of its parts times the spread, and the series
  -- fitted directly. Where their intervals do not meet, the runs do not settle the value and
  -- the note says so (halo3d at 1, 2 and 4 crowded ranks, at p = 16: the compute's max 12.2 s,
  -- 2.96..17.4, and 1.56 s, 0.62..2.32, fitted directly)
  local function disagreements(target, first)
    local rows = {}
    for i = first, #out do rows[out[i].metric] = out[i] end -- the target's rows
    for _, what in ipairs({"per-rank compute time", "MPI time per rank", "wall time per rank"}) do
      local a, b = rows[what .. ", max (s)"], rows[what .. ", max, fitted directly (s)"]
      if a and b and a.low and b.low and apart(a.low, a.high, a.value, b.low, b.high, b.value) then
        note(string.format("target %s: %s, max: the %s (%.3g s, %.3g..%.3g) and the max " ..
          "fitted directly (%.3g s, %.3g..%.3g) disagree beyond their intervals: the runs do " ..
          "not settle it (too few scales, crowded or noisy runs)", scale_key(target), what,
          a.model, a.value, a.low, a.high, b.value, b.low, b.high))
      end
    end
  end

  local function predict_target(target)
    target = complete(target)
    local first = #out + 1
    -- a parameter of the target that no run varies cannot be predicted; one that no run has
    -- is most likely misspelt: name the runs' parameters
    local fixed, absent = nil, nil
    for k, v in pairs(target) do
      local lo, hi = range(params, k)
      if lo > hi then absent = k elseif lo == hi and v ~= lo then fixed = k end
    end
    if absent then
      local names = {}
      for k in pairs(latest.params) do names[#names + 1] = k end
      table.sort(names)
      note(string.format("target %s: no run has the parameter %s (the runs have %s)",
        scale_key(target), absent, table.concat(names, ", ")))
      return
    end
    if fixed then
      note(string.format("target %s: no run varies %s, so nothing can be predicted for it",
        scale_key(target), fixed))
      return
    end

    local a, b = uncombined(params, target)
    if a then
      note(string.format("target %s: the runs vary %s and %s one at a time, so how the two " ..
        "combine there is not measured: models add their effects up unless a product of " ..
        "both fits the runs (the intervals hold the other forms)", scale_key(target), a, b))
    end

    local all = {}
    for i, x in ipairs(params) do all[i] = {x = x} end
    local ext = extrapolates(all, target)

    -- compute: every interval separately, then the sum and the spread
    local compute = sum_of(target, parts_of(intervals))
    if compute.missing > 0 then
      note(string.format("%d of %d intervals have no model (%s)", compute.missing, #intervals,
                         compute.why or "the model gives no finite value"))
    end
    compute = compute.n > 0 and settle(target, compute, "rank:compute", "per-rank compute time")
    if compute then
      report_sum(target, compute, ext, "per-rank compute time", "per-rank compute",
                 "rank:compute", "sum of " .. compute.n .. " interval models", "interval sum",
                 {{"p50", "median"}, {"p90", "90th percentile"}, {"max", "max", 1}})
    end
    if reference(index)["rank:compute"] then -- not in an Extra-P file of another tool
      each(target, "per-rank compute time, max, fitted directly (s)",
           stat("rank:compute", "value", "max"))
    end

    -- MPI time the same way, every call path separately (jacobi's MPI_Init, a constant 27 ms,
    -- and its Allreduce growing with n, fitted as one series: 33% low at twice the size), and
    -- the wall time as compute + MPI + the rest (each rank's wall time less both: fitted as
    -- one series, MPI_Init's noise hid the compute growing 4x, 65% low)
    local composed = {}
    local mpi = reference(index)["rank:mpi"] and #calls > 0 and sum_of(target, parts_of(calls))
    if mpi and mpi.n > 0 and mpi.missing == 0 then
      composed.mpi = true
      mpi = settle(target, mpi, "rank:mpi", "MPI time per rank")
      if mpi then
        report_sum(target, mpi, ext, "MPI time per rank", "MPI time per rank", "rank:mpi",
                   "sum of " .. mpi.n .. " call path models", "call path sum", {{"max", "max", 1}})
      end
      local wall = reference(index)["rank:wall"] and mpi and compute and compute.missing == 0 and
                   with_rest(target, compute, mpi)
      if wall then
        composed.wall = true
        wall = settle(target, wall, "rank:wall", "wall time per rank")
      end
      if wall then
        report_sum(target, wall, ext, "wall time per rank", "wall time per rank", "rank:wall",
                   "compute + MPI + the rest: " .. (compute.n + mpi.n + 1) .. " models",
                   "wall sum", {{"max", "max", 1}})
      end
    end

    for i = 1, math.min(TOP, #intervals) do
      local key, name = intervals[i], "interval " .. short(intervals[i])
      each(target, name .. ": time per rank, mean (s)", stat(key, "time", "mean"))
      each(target, name .. ": time per rank, max (s)", stat(key, "time", "max"))
      each(target, name .. ": count per rank", stat(key, "count", "mean"))
      counters(target, key, name)
    end

    for i = 1, math.min(TOP, #calls) do
      local key, name = calls[i], short(calls[i])
      each(target, name .. ": time per rank, mean (s)", stat(key, "time", "mean"))
      each(target, name .. ": time per rank, max (s)", stat(key, "time", "max"))
      each(target, name .. ": calls per rank", stat(key, "count", "mean"))
      counters(target, key, name)
      for _, dir in ipairs({"sent", "recv"}) do
        local m = reference(index)[key]
        if m[dir] and m[dir].sum > 0 then
          each(target, name .. ": bytes " .. dir .. " per rank", stat(key, dir, "mean"))
        end
      end
    end

    -- memory the MPI library holds per call path (e.g. MPI_Init growing with p)
    local held = keys_of(index, "mpi", function(m) return m.memory_live and m.memory_live.max end)
    for i = 1, math.min(TOP, #held) do
      local m = reference(index)[held[i]]
      if m.memory_live and m.memory_live.max > 0 then
        each(target, short(held[i]) .. ": MPI memory held, max per rank (bytes)",
             stat(held[i], "memory_live", "max"))
        each(target, short(held[i]) .. ": MPI memory held, mean per rank (bytes)",
             stat(held[i], "memory_live", "mean"))
      end
    end

    -- every per-rank metric of the program: partners, messages, bytes, MPI time, wall, memory,
    -- ...; the max over ranks, and the mean too for the MPI library's memory (seed 001: per
    -- process)
    for _, key in ipairs(ranks) do
      local name = key:gsub("^rank:", "")
      local known = RANK_NAMES[name]
      if key ~= "rank:compute" and not setting(name) then
        local direct = composed[name] and ", fitted directly" or ""
        each(target, known and known .. ", max" .. direct .. UNITS[name] or
             rank_max(name), stat(key, "value", "max"))
      end
      if name:find("^mpi_memory") and known then
        each(target, known .. ", mean" .. UNITS[name], stat(key, "value", "mean"))
      end
    end

    -- rows of other kinds (wait patterns, counters, ...): every statistic they carry
    for _, kind in ipairs(other_kinds(index)) do
      local keys = keys_of(index, kind, function(m)
        local s = stats_of(m)[1]
        return s and m[s].sum
      end)
      for i = 1, math.min(TOP, #keys) do
        local m = reference(index)[keys[i]]
        for _, what in ipairs(stats_of(m)) do
          for _, field in ipairs({"mean", "max"}) do
            each(target, label(kind, m) .. ": " .. what .. " per rank, " .. field ..
                 (SECONDS[what] and " (s)" or ""),
                 stat(keys[i], what, field))
          end
        end
      end
    end
    disagreements(target, first)
  end
  for _, target in ipairs(ctx.targets) do predict_target(target) end
  for _, why in ipairs(reasons) do
    local metrics = unsupported[why]
    note(#metrics == 1 and metrics[1] .. ": " .. why or #metrics == 2 and
      string.format("2 metrics (%s and %s): %s", metrics[1], metrics[2], why) or
      string.format("%d metrics (%s and %d others): %s", #metrics, metrics[1], #metrics - 1, why))
  end
  if #notes > 0 then out.note = table.concat(notes, "\n") end
  return out
end)
