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
-- wins where it offers a model, else the family that predicts larger scales best (the mean of
-- its leave-one-out error and its forward-chaining error: the largest scale of each parameter
-- predicted by the family fitted on the smaller ones). Every prediction carries its family,
-- model, fit error, uncertainty, an 80% interval (low, high, coverage) and whether the target
-- lies outside the fitted range; where the runs cannot support a number at a target the note
-- says why instead.

local TOP = 3     -- intervals, call paths and rows of other kinds reported one by one

local function finite(v)
  return type(v) == "number" and v == v and v > -math.huge and v < math.huge
end

-- The scale of a run as text ("n=256,p=4"): to order runs and count their scales.
local function scale_key(params)
  local parts = {}
  for k, v in pairs(params) do
    -- 48, not 48.0: a target's values are floats, a run's integers
    parts[#parts + 1] = k .. "=" .. (type(v) == "number" and math.tointeger(v) and
      string.format("%d", v) or tostring(v))
  end
  table.sort(parts)
  return table.concat(parts, ",")
end

local function distinct(pts)
  local seen, n = {}, 0
  for _, pt in ipairs(pts) do
    local key = scale_key(pt.x)
    if not seen[key] then seen[key], n = true, n + 1 end
  end
  return n
end

-- Smallest and largest number among values[i][k] (math.huge, -math.huge when there is none).
local function range(values, k)
  local lo, hi = math.huge, -math.huge
  for _, t in ipairs(values) do
    local x = t[k]
    if type(x) == "number" then lo, hi = math.min(lo, x), math.max(hi, x) end
  end
  return lo, hi
end

-- The target lies outside the range of the fitted points in some parameter it sets.
local function extrapolates(pts, target)
  local xs = {}
  for i, pt in ipairs(pts) do xs[i] = pt.x end
  for k, v in pairs(target) do
    local lo, hi = range(xs, k)
    if lo <= hi and (v < lo or v > hi) then return true end
  end
  return false
end

local COVERAGE = 80     -- nominal coverage of the prediction intervals, percent
local Z = 1.2816       -- the standard normal quantile of 90%: a central 80% interval
local NEAR = 1.25      -- models scoring within this factor of the best are near-best

-- The parameters that vary over pts (in name order) and, per parameter, its largest and
-- second largest value and its number of values: {names = {...}, hi = {k = v},
-- prev = {k = v}, values = {k = count}}.
local function scale_info(pts)
  local names, hi, prev, values, first = {}, {}, {}, {}, pts[1] and pts[1].x or {}
  for k, v in pairs(first) do
    if type(v) == "number" then
      local a, b, varies, seen, count = -math.huge, -math.huge, false, {}, 0
      for _, pt in ipairs(pts) do
        local x = pt.x[k]
        if x ~= v then varies = true end
        if x > a then a, b = x, a elseif x < a and x > b then b = x end
        if not seen[x] then seen[x], count = true, count + 1 end
      end
      if varies then names[#names + 1] = k; hi[k], prev[k], values[k] = a, b, count end
    end
  end
  table.sort(names)
  return {names = names, hi = hi, prev = prev, values = values}
end

-- The relative error of a prediction p of the actual a: |log(p / a)| when both are positive,
-- else the relative difference.
local function log_error(p, a)
  if p > 0 and a > 0 then return math.abs(math.log(p / a)) end
  return math.abs(p - a) / math.max(math.abs(a), 1e-300)
end

-- Forward chaining (what a prediction does): for each parameter that varies, the points at
-- its largest value predicted by the family fitted on the others. The errors (log ratios),
-- or an empty array when no parameter has enough smaller values.
local function holdout(spec, pts, info)
  local errors = {}
  for _, k in ipairs(info.names) do
    local top = info.hi[k]
    local train, test = {}, {}
    for _, pt in ipairs(pts) do
      if pt.x[k] < top then train[#train + 1] = pt else test[#test + 1] = pt end
    end
    -- enough smaller values of k for the family (counted along k: no scale keys to build)
    if info.values[k] - 1 >= math.max(3, spec.min_points or 3) then
      local ok, m = pcall(spec.fit, train)
      if ok and type(m) == "table" and type(m.predict) == "function" then
        for _, pt in ipairs(test) do
          local okp, v = pcall(m.predict, pt.x)
          if okp and finite(v) then errors[#errors + 1] = log_error(v, pt.y) end
        end
      end
    end
  end
  return errors
end

local function mean_of(v)
  if #v == 0 then return nil end
  local s = 0
  for _, x in ipairs(v) do s = s + x end
  return s / #v
end

-- Fit pts with every family; each model scored by how well it predicts: the mean of its
-- leave-one-out error (uncertainty) and its forward-chaining error at the largest scales
-- (a family with more freedom earns its place on held-out points). pts: a point a scale.
-- Returns the model of a family that prevails, else the best (ties: the first in name order),
-- with .score, .extrap (mean held-out log error), .near (the models of every family within
-- NEAR of the best score); nil and the reason when no family can.
local function best_model(families, pts)
  local n, fits, why, info, prevailing = #pts, {}, nil, scale_info(pts), nil
  for _, f in ipairs(families) do
    if n >= (f.spec.min_points or 3) then
      local m, reason = f.spec.fit(pts)
      if type(m) == "table" and type(m.predict) == "function" then
        m.family, m.refit = f.name, f.spec.fit
        local loo = finite(m.uncertainty) and m.uncertainty / 100 or nil
        -- Forward chaining by refitting the whole family on the smaller scales: PMNF's own
        -- forward-chaining error is that of the hypothesis it chose on all the runs, and the
        -- best of some sixty hypotheses looks better than it predicts (POISSON_MPI, noisy
        -- collective latencies: the families with four models predicted better and lost).
        -- The family's own error (SMAPE, percent) where no refit can be made, and for the
        -- interval (the refit's made intervals 27% wide where 16% held as many of the
        -- corpus's values).
        local own = finite(m.extrap_error) and m.extrap_error / 100 or nil
        local ext = mean_of(holdout(f.spec, pts, info)) or own
        -- a model that cannot be cross-validated inside the range (no leave-one-out error)
        -- has not earned its place: it wins only where no other family fits
        if loo and ext then m.score = (loo + ext) / 2
        elseif loo then m.score = loo
        else m.score = 1e6 + (ext or 1e6) end
        m.extrap = own or ext
        fits[#fits + 1] = m
        if f.spec.prevails and not prevailing then prevailing = m end
      else
        why = why or reason
      end
    else
      why = why or string.format("too few runs: needs runs at %d different scales, has %d",
                                 f.spec.min_points or 3, n)
    end
  end
  local best
  for _, m in ipairs(fits) do
    if not best or m.score < best.score then best = m end
  end
  -- a family that offers a model only where the runs rule out the others (constant: no
  -- change beyond the noise between repetitions) prevails over the scores
  if prevailing then best = prevailing end
  if not best then return nil, why or "no family can model it" end
  best.info = info
  best.near = {}
  for _, m in ipairs(fits) do
    if m.score <= NEAR * best.score + 1e-3 then best.near[#best.near + 1] = m end
  end
  return best
end

-- How many steps beyond the data the target lies: per parameter the log distance from the
-- largest value to the target over the log distance between the two largest values (the
-- step the forward-chaining error was measured on); at least 1 (also inside the range).
local function steps(info, target)
  local most = 1
  for _, k in ipairs(info.names) do
    local v, hi, prev = target[k], info.hi[k], info.prev[k]
    if type(v) == "number" and v > hi and prev > 0 and hi > prev then
      most = math.max(most, math.log(v / hi) / math.log(hi / prev))
    end
  end
  return most
end

-- The noise of a scale's median, from its repetitions: their spread as the median absolute
-- deviation of their logs from the median's (robust: with one run of three ten times slower
-- the mean deviation made the noise 55%), scaled to a standard deviation for normal
-- noise with the factor for that many runs (MAD_SCALE, from simulation; 1.4826 for many), and
-- the median's standard deviation from it (x 1.2533 over the square root of their number); nil
-- without repetitions.
local MAD_SCALE = {[2] = 1.771, [3] = 2.208, [4] = 2.018, [5] = 1.805, [6] = 1.768,
                   [7] = 1.687, [8] = 1.672, [9] = 1.632, [10] = 1.625}
local function rep_noise(pt)
  local r = pt.reps
  if not (r and #r >= 2 and pt.y > 0) then return nil end
  local d = {}
  for i, v in ipairs(r) do d[i] = v > 0 and math.abs(math.log(v / pt.y)) or 0 end
  table.sort(d)
  local n = #d
  local mad = n % 2 == 1 and d[(n + 1) // 2] or (d[n // 2] + d[n // 2 + 1]) / 2
  local sd = mad * (MAD_SCALE[n] or 1.4826 * n / (n - 1))
  return 1.2533 * sd / math.sqrt(n)
end

-- The noise of the medians: the median over the scales of rep_noise; 0 without repetitions.
local function median_noise(pts)
  local per = {}
  for _, pt in ipairs(pts) do per[#per + 1] = rep_noise(pt) end
  if #per == 0 then return 0 end
  table.sort(per)
  return per[(#per + 1) // 2]
end

-- How the prediction at target moves when the runs move by their noise: the family refitted
-- (its choice of form included) on DRAWS copies of the points, each scale's median multiplied
-- by exp(noise * a standard normal draw), the noise of the medians pooled over the scales
-- (median_noise(pts), given: noise of run times is a share of the value) or, without
-- repetitions, the model's leave-one-out error (a mean absolute error: x 1.25 for the
-- standard deviation, as in interval; without it one run per scale held 76-79% in
-- bench/predict_draws.py, with it 79-82%); the 10th and 90th percentile of the
-- predictions. Nil without noise or when fewer than half the copies give a positive value.
-- The form a family chooses from five noisy scales changes from one draw of the noise to the
-- next, and with it the value 4x beyond (p log p from p = 1..16 at 64: -18% to +19% over 20
-- draws); the forward-chaining error, measured once, does not see that.
local DRAWS = 40
local function spread(model, pts, target, noise)
  if noise == 0 then noise = finite(model.uncertainty) and 1.25 * model.uncertainty / 100 or 0 end
  if noise == 0 then return nil end -- runs without noise: every copy would be the same
  math.randomseed(20261127) -- the same draws for every series and every run of tardy
  local logs = {}
  for _ = 1, DRAWS do
    local copy = {}
    for i, pt in ipairs(pts) do
      local g = math.sqrt(-2 * math.log(1 - math.random())) * math.cos(2 * math.pi * math.random())
      local f, reps = math.exp(noise * g), nil
      if pt.reps then -- moved with their median
        reps = {}
        for j, r in ipairs(pt.reps) do reps[j] = r * f end
      end
      copy[i] = {x = pt.x, y = pt.y * f, reps = reps}
    end
    local ok, m = pcall(model.refit, copy)
    if ok and type(m) == "table" and type(m.predict) == "function" then
      local okp, a = pcall(m.predict, target)
      if okp and finite(a) and a > 0 then logs[#logs + 1] = math.log(a) end
    end
  end
  if #logs < DRAWS / 2 then return nil end
  table.sort(logs)
  local function at(q) return math.exp(logs[math.max(1, math.floor(q * #logs + 0.5))]) end
  return at(0.1), at(0.9)
end

-- The prediction interval of model at target (of the median run there), with nominal
-- coverage COVERAGE: in log space, the value ± Z · sigma. The leave-one-out error is the floor
-- (repetition noise and misfit inside the range), and at least the noise of a scale's median
-- measured by the repetitions (a family that fits few points closely, as pmnf_upper does its
-- four, can have a leave-one-out error below it: jacobi's Sendrecv time at nine sizes got an
-- interval 0.7% wide and missed by 6.9%). The forward-chaining error measured one step beyond
-- the data already holds that noise, so only its excess over the floor is the error of
-- extrapolating, which grows with the steps to the target: sigma² = loo² + (ext² − loo²) ·
-- steps² (adding ext and loo in quadrature counted the noise twice: intervals of noisy series
-- twice as wide as their errors, and then refused as "models disagree"); the errors are mean
-- absolute ones, x 1.25 a standard deviation. Stretched to hold the spread of the refitted
-- family over noise draws (unless drawn is false: the small parts of a sum) and the values of
-- the near-best models (of every family, and the near-best hypotheses of a family that offers
-- model.range). Returns low, high. No factor fitted on the corpus widens it (one of 1.3 did
-- before the noise draws).
local function interval(model, pts, target, v, drawn)
  local noise = median_noise(pts)
  local loo = math.max(finite(model.uncertainty) and model.uncertainty / 100 or 0, noise)
  local ext = model.extrap or loo
  local excess = math.max(ext ^ 2 - loo ^ 2, 0) * steps(model.info, target) ^ 2
  local sigma = 1.25 * math.sqrt(loo ^ 2 + excess)
  local lo, hi
  if v > 0 then
    lo, hi = v * math.exp(-Z * sigma), v * math.exp(Z * sigma)
  else
    local w = math.abs(v) * (math.exp(Z * sigma) - 1)
    lo, hi = v - w, v + w
  end
  if drawn and model.refit then
    local l, h = spread(model, pts, target, noise)
    if l then lo, hi = math.min(lo, l), math.max(hi, h) end
  end
  for _, m in ipairs(model.near) do
    local ok, a = pcall(m.predict, target)
    if ok and finite(a) then lo, hi = math.min(lo, a), math.max(hi, a) end
    if type(m.range) == "function" then
      local okr, l, h = pcall(m.range, target)
      if okr and finite(l) and finite(h) then lo, hi = math.min(lo, l), math.max(hi, h) end
    end
  end
  return lo, hi
end

-- index[i]["kind:key"] = metric table of run i
local function index_runs(runs)
  local index = {}
  for i, run in ipairs(runs) do
    index[i] = {}
    for _, m in ipairs(run:metrics()) do index[i][m.kind .. ":" .. m.key] = m end
  end
  return index
end

-- points {x = params[i], y, reps} over the scales of the runs: y the median of the values of
-- get(metric) in the runs at that scale (repetitions: one slow run does not move it), reps
-- those values (tardy.medians); runs without the value are skipped
local function series(params, index, key, get)
  local pts = {}
  for i, x in ipairs(params) do
    local m = index[i][key]
    local ok, v = m ~= nil, nil
    if ok then v = get(m) end
    if finite(v) then pts[#pts + 1] = {x = x, y = v} end
  end
  return tardy.medians(pts)
end

-- A field of a stat: get("time", "mean")(metric). A row without the stat had it zero on
-- every rank (no bytes, no memory): 0.
local function get(stat, field)
  return function(m)
    if not m[stat] then return 0 end
    return m[stat][field]
  end
end

-- The run with the most wall time (summed over ranks).
local function reference(index)
  local best, most = #index, -1
  for i, rows in ipairs(index) do
    local wall = rows["rank:wall"]
    local t = wall and wall.value and wall.value.sum or 0
    if t > most then best, most = i, t end
  end
  return index[best]
end

-- Keys of the reference run's rows of one kind, by decreasing order(metric).
local function keys_of(index, kind, order)
  local last, keys = reference(index), {}
  for key, m in pairs(last) do
    if m.kind == kind then keys[#keys + 1] = key end
  end
  table.sort(keys, function(a, b)
    local x, y = order(last[a]) or 0, order(last[b]) or 0
    if x ~= y then return x > y end
    return a < b
  end)
  return keys
end

-- Other kinds than the three the policy knows (wait patterns, counters, ...).
local function other_kinds(index)
  local kinds, seen = {}, {}
  for _, m in pairs(reference(index)) do
    if m.kind ~= "mpi" and m.kind ~= "interval" and m.kind ~= "rank" and not seen[m.kind] then
      seen[m.kind] = true
      kinds[#kinds + 1] = m.kind
    end
  end
  table.sort(kinds)
  return kinds
end

-- What the per-rank metrics of the profile are called in predictions, and their units.
local RANK_NAMES = {
  mpi = "MPI time per rank", wall = "wall time per rank",
  partners = "point-to-point partners per rank", p2p_messages = "point-to-point messages per rank",
  p2p_sent_bytes = "point-to-point bytes sent per rank",
  p2p_recv_bytes = "point-to-point bytes received per rank",
  max_bytes_one_partner = "bytes exchanged with one partner per rank",
  mpi_memory_high_water = "MPI library memory per rank, peak",
  mpi_memory_live = "MPI library memory per rank at finalize",
}
-- Per-rank metrics of how the run was measured and placed, not of what the program did
-- (the clocks' offsets, the CPUs of the hosts, tardy's own bookkeeping): not predicted.
local SETTING = {clock_violations = true, clock_offset = true, clock_uncertainty = true,
  clock_drift = true, clock_resyncs = true, host_ranks = true, host_cpus = true,
  ranks_per_cpu = true, mpi_memory_untracked_allocs = true}
local function setting(name)
  return SETTING[name] or name:find("^waits_unmeasured_") ~= nil
end
local UNITS = {mpi = " (s)", wall = " (s)", partners = "", p2p_messages = "",
  p2p_sent_bytes = " (bytes)", p2p_recv_bytes = " (bytes)", max_bytes_one_partner = " (bytes)",
  mpi_memory_high_water = " (bytes)", mpi_memory_live = " (bytes)"}

-- "MPI_Send@main jacobi.c:88;solve ..." → "MPI_Send@main jacobi.c:88"
local function short(key)
  return (key:gsub("^[%w_]+:", ""):gsub(";[^>]*", ""))
end

-- The name of a row of another kind in predictions: "wait late_sender at SITE", "cause of
-- late_sender at SITE: FROM -> TO" (the late ranks' interval that caused it; "in SITE" an MPI
-- call; docs/profile-schema.md, wait_causes), else "kind key". A cause's key holds a newline
-- and a tab, which would break the table's line.
local function label(kind, m)
  if kind == "wait" and m.b then return "wait " .. m.a .. " at " .. short(m.b) end
  local pattern, site = m.a:match("^(.-)\n(.*)$")
  if kind == "cause" and m.b and pattern then
    local from, to = m.b:match("^(.-)\t(.*)$")
    local region = from and short(from) .. " -> " .. short(to) or
      m.b == "?" and "no hotspot region" or m.b:find("^%?") and "a region no rank could name" or
      "in " .. short(m.b)
    return string.format("cause of %s at %s: %s", pattern, short(site), region)
  end
  return kind .. " " .. short(m.key):gsub("[\n\t]", " ")
end

-- Statistics of a row worth predicting, in a fixed order: every stat the row has.
local function stats_of(m)
  local names = {}
  for k, v in pairs(m) do
    if type(v) == "table" and v.sum then names[#names + 1] = k end
  end
  table.sort(names)
  return names
end

-- The runs in a canonical order (scale, then start time), so that the same runs give the same
-- predictions bit for bit at finalize and offline; the reference run (the one whose rows are
-- reported one by one) is the one with the most wall time.
local function canonical(list)
  local runs = {}
  for i, run in ipairs(list) do
    runs[i] = {run = run, key = scale_key(run.params), start = run.start}
  end
  table.sort(runs, function(a, b)
    if a.key ~= b.key then return a.key < b.key end
    return a.start < b.start
  end)
  for i, r in ipairs(runs) do runs[i] = r.run end
  return runs
end

-- At most tardy.max_points runs, the newest (and always the current one); among runs of the
-- same start (an Extra-P file's: repetition by repetition) the first, so that every point
-- keeps its first repetitions.
local function newest(list)
  if #list <= tardy.max_points then return list end
  local order = {}
  for i, run in ipairs(list) do order[i] = {run = run, i = i} end
  table.sort(order, function(a, b)
    if a.run.current ~= b.run.current then return a.run.current end
    if a.run.start ~= b.run.start then return a.run.start > b.run.start end
    return a.i < b.i
  end)
  local kept = {}
  for i = 1, tardy.max_points do kept[i] = order[i].run end
  return kept
end

tardy.policy("default", function(ctx)
  local runs, out, notes = canonical(newest(ctx.runs)), {}, {}
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

  -- one prediction of a series; returns value, model, points, low, high (nil and the reason
  -- if omitted: no model, or data that cannot support a number at the target). least: the
  -- smallest value the metric can take, if it has one (the max over ranks over their mean
  -- is at least 1: models of other families fitting the noise put its interval at 0.19..5.9);
  -- a series no run measured below 0 (times, counts, bytes) is not predicted below 0 either
  -- (jacobi's point-to-point messages at one rank: -6.2 from 215 - 222/p, and a wait's time
  -- -0.33..0.22 s from the near-best models), and a value within rounding of 0 is 0 (the
  -- count 40 - 40/p at p=1 printed 7.1e-15)
  local function predict(target, metric, id, make, least)
    local pts, model, why = fitted(target, id, make)
    if not model then return nil, why end
    local v = model.predict(target)
    if not finite(v) then return nil, "the model gives no finite value" end
    local lo, hi = interval(model, pts, target, v, true)
    local all_positive, none_negative, largest = true, true, 0
    for _, pt in ipairs(pts) do
      all_positive, none_negative = all_positive and pt.y > 0, none_negative and pt.y >= 0
      largest = math.max(largest, math.abs(pt.y))
    end
    local function rounded(x) return math.abs(x) <= 1e-9 * largest and 0 or x end
    v, lo, hi = rounded(v), rounded(lo), rounded(hi)
    if none_negative then least = math.max(least or 0, 0) end
    if least then v, lo, hi = math.max(v, least), math.max(lo, least), math.max(hi, least) end
    if all_positive and v <= 0 then
      return nil, "no prediction at " .. scale_key(target) .. ": the trend of the runs does " ..
        "not continue there (the best model falls to zero or below)"
    end
    -- also where some runs are 0 (no waits at one rank): a wait's time that is 0.02 s in one
    -- run and 0.9 s in its twin got 0.04 at 12 ranks, "4.9e-06..328"
    if lo > 0 and hi / lo > 100 then
      return nil, string.format("no prediction at %s: the models that fit the runs disagree " ..
        "by %.0fx there (too few scales, noise between the runs, or a trend that reverses)",
        scale_key(target), hi / lo)
    end
    out[#out + 1] = {target = target, metric = metric, value = v, family = model.family,
      model = model.formula, fit_error = model.fit_error, uncertainty = model.uncertainty,
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

  local intervals = keys_of(index, "interval", function(m) return m.time and m.time.sum end)
  local calls = keys_of(index, "mpi", function(m) return m.time and m.time.sum end)
  local ranks = keys_of(index, "rank", function() return 0 end)

  -- Parameters a target leaves out keep the value of the current run (at finalize), else of
  -- the latest run: "p=1024" means this program as it was run, at 1024 ranks.
  local latest = runs[1]
  for _, run in ipairs(runs) do
    if run.current or (not latest.current and run.start > latest.start) then latest = run end
  end
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
  local function sum_of(target, parts, beyond)
    local got, total = {}, beyond or 0
    for j, part in ipairs(parts) do
      local pts, model, why = fitted(target, part.id, part.make)
      local v = model and model.predict(target)
      got[j] = {pts = pts, model = model, v = v, why = why}
      if finite(v) then total = total + math.max(v, 0) end
    end
    local s = {value = 0, below = 0, above = 0, var = 0, n = 0, missing = 0, fit = {}}
    local models = {}
    for j, g in ipairs(got) do
      if finite(g.v) then
        local lo, hi = interval(g.model, g.pts, target, g.v, g.v >= 0.05 * total)
        local v = math.max(g.v, 0)
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
    -- 2), in a fixed order: the same sum every time
    local actual, fit, used = {}, {}, {}
    for i, x in ipairs(params) do used[i] = {x = x, y = i} end
    for _, pt in ipairs(tardy.points_for(used, target) or {}) do
      local i, a, f = pt.y, 0, 0
      for j, part in ipairs(parts) do
        if models[j] then
          a = a + (part.of(i) or 0)
          f = f + math.max(models[j].predict(params[i]), 0)
        end
      end
      actual[#actual + 1], fit[#fit + 1], s.fit[i] = a, f, f
    end
    s.fit_error = tardy.smape(actual, fit)
    return s
  end

  -- the parts "time per rank, mean" of the rows keys
  local function parts_of(keys)
    local parts = {}
    for j, key in ipairs(keys) do
      local id, make = stat(key, "time", "mean")
      parts[j] = {id = id, make = make, of = function(i)
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
    local r = sum_of(target, {{id = "rest|wall", of = rest, make = function()
      local p = {}
      for i, x in ipairs(params) do
        local v = rest(i)
        if finite(v) then p[#p + 1] = {x = x, y = v} end
      end
      return tardy.medians(p)
    end}}, compute.value + mpi.value)
    if r.n == 0 then return nil end
    local s = {value = compute.value + mpi.value + r.value}
    for _, k in ipairs({"below", "above", "var"}) do s[k] = compute[k] + mpi[k] + r[k] end
    local actual, fit = {}, {}
    for i = 1, #params do -- in a fixed order: the same sum every time
      local w = index[i]["rank:wall"]
      if compute.fit[i] and mpi.fit[i] and r.fit[i] and w and w.value then
        actual[#actual + 1] = w.value.mean
        fit[#fit + 1] = compute.fit[i] + mpi.fit[i] + r.fit[i]
      end
    end
    s.fit_error = tardy.smape(actual, fit)
    return s
  end

  -- A sum's row (name, mean), and for each statistic q of the ranks ({field, words, least})
  -- the sum times the predicted ratio of that statistic to the mean over the ranks of the
  -- rows rank (what: its name in the ratio's row); the ratio's interval and the sum's added
  -- as relative half-widths.
  local function report_sum(target, s, ext, name, what, rank, model, short_model, quantiles)
    local u = s.value > 0 and 100 * math.sqrt(s.var) / s.value or 0
    out[#out + 1] = {target = target, metric = name .. ", mean (s)", value = s.value,
      family = "default", model = model, fit_error = s.fit_error, uncertainty = u,
      extrapolated = ext, low = math.max(s.value - math.sqrt(s.below), 0),
      high = s.value + math.sqrt(s.above), coverage = COVERAGE}
    local rlo = s.value > 0 and math.sqrt(s.below) / s.value or 0
    local rhi = s.value > 0 and math.sqrt(s.above) / s.value or 0
    for _, q in ipairs(quantiles) do
      local ratio, m, pts, rl, rh = predict(target, "spread of " .. what .. " (" .. q[2] ..
        " / mean)", "spread|" .. rank .. "|" .. q[1], function()
          return series(params, index, rank, function(r)
            local v = r.value
            return v and v.mean > 0 and v[q[1]] and v[q[1]] / v.mean or nil
          end)
        end, q[3])
      if ratio then
        local ur = finite(m.uncertainty) and m.uncertainty or 0
        out[#out + 1] = {target = target, metric = name .. ", " .. q[2] .. " (s)",
          value = s.value * ratio, family = "default", model = short_model .. " x spread",
          fit_error = m.fit_error, uncertainty = math.sqrt(u * u + ur * ur),
          extrapolated = ext or extrapolates(pts, target),
          low = s.value * ratio * math.max(1 - math.sqrt(rlo ^ 2 + (1 - rl / ratio) ^ 2), 0),
          high = s.value * ratio * (1 + math.sqrt(rhi ^ 2 + (rh / ratio - 1) ^ 2)),
          coverage = COVERAGE}
      end
    end
  end

  local function predict_target(target)
    target = complete(target)
    -- a parameter of the target that no run varies cannot be predicted
    local fixed = nil
    for k, v in pairs(target) do
      local lo, hi = range(params, k)
      if lo > hi or (lo == hi and v ~= lo) then fixed = k end
    end
    if fixed then
      note(string.format("target %s: no run varies %s, so nothing can be predicted for it",
        scale_key(target), fixed))
      return
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
    if compute.n > 0 then
      report_sum(target, compute, ext, "per-rank compute time", "per-rank compute",
                 "rank:compute", "sum of " .. compute.n .. " interval models", "interval sum",
                 {{"max", "max", 1}, {"p90", "90th percentile"}, {"p50", "median"}})
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
      report_sum(target, mpi, ext, "MPI time per rank", "MPI time per rank", "rank:mpi",
                 "sum of " .. mpi.n .. " call path models", "call path sum", {{"max", "max", 1}})
      local wall = reference(index)["rank:wall"] and compute.n > 0 and compute.missing == 0 and
                   with_rest(target, compute, mpi)
      if wall then
        composed.wall = true
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
             name .. ", max per rank", stat(key, "value", "max"))
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
            each(target, label(kind, m) .. ": " .. what .. " per rank, " .. field,
                 stat(keys[i], what, field))
          end
        end
      end
    end
  end
  for _, target in ipairs(ctx.targets) do predict_target(target) end
  for _, why in ipairs(reasons) do
    local metrics = unsupported[why]
    note(#metrics == 1 and metrics[1] .. ": " .. why or string.format("%d metrics (%s and %d " ..
      "others): %s", #metrics, metrics[1], #metrics - 1, why))
  end
  if #notes > 0 then out.note = table.concat(notes, "\n") end
  return out
end)
