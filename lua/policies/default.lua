-- The default prediction policy. It does not fit one curve to a total (seed 000: totals mix
-- parts that scale differently). Instead it models every compute interval and every MPI call
-- path separately, models how the spread across ranks changes, and combines:
--   per-rank compute = sum over intervals of the predicted mean time per rank
--   max per-rank compute = that sum x the predicted max/mean ratio of per-rank compute
-- It also predicts calls and bytes per call path, partners, and the MPI library's memory.
-- Every prediction carries its family, model, fit error, cross-validated uncertainty, and
-- whether the target lies outside the fitted range.

local FAMILY = "pmnf"   -- the family used for every series; any registered family works
local TOP = 5           -- intervals and call paths reported one by one

-- points {x = params, y = value} of one metric over the runs; nil values are skipped
local function series(runs, index, key, get)
  local pts = {}
  for i, run in ipairs(runs) do
    local m = index[i][key]
    local v = m and get(m)
    if v and v == v then pts[#pts + 1] = {x = run.params, y = v} end
  end
  return pts
end

local function distinct_points(pts)
  local seen, n = {}, 0
  for _, pt in ipairs(pts) do
    local parts = {}
    for k, v in pairs(pt.x) do parts[#parts + 1] = k .. "=" .. tostring(v) end
    table.sort(parts)
    local key = table.concat(parts, ",")
    if not seen[key] then seen[key], n = true, n + 1 end
  end
  return n
end

-- The target lies outside the range of the fitted points in some parameter it sets.
local function extrapolates(pts, target)
  for k, v in pairs(target) do
    local lo, hi = math.huge, -math.huge
    for _, pt in ipairs(pts) do
      local x = pt.x[k]
      if type(x) == "number" then lo, hi = math.min(lo, x), math.max(hi, x) end
    end
    if lo <= hi and (v < lo or v > hi) then return true end
  end
  return false
end

-- Fit one series; nil and the reason when the family cannot.
local function model_of(pts)
  local family = tardy.get_family(FAMILY)
  if not family then return nil, "no family '" .. FAMILY .. "'" end
  local need = family.min_points or 3
  if distinct_points(pts) < need then
    return nil, string.format("needs runs at %d different scales, has %d", need,
                              distinct_points(pts))
  end
  return family.fit(pts)
end

local function predict_one(out, pts, target, metric)
  local model, why = model_of(pts)
  if not model then return nil, why end
  local v = model.predict(target)
  if v ~= v or v == math.huge or v == -math.huge then return nil, "model gives no finite value" end
  out[#out + 1] = {target = target, metric = metric, value = v, family = FAMILY,
    model = model.formula, fit_error = model.fit_error, uncertainty = model.uncertainty,
    extrapolated = extrapolates(pts, target)}
  return v
end

-- index[i][key] = metric table of run i
local function index_runs(runs)
  local index = {}
  for i, run in ipairs(runs) do
    index[i] = {}
    for _, m in ipairs(run:metrics()) do index[i][m.kind .. ":" .. m.key] = m end
  end
  return index
end

-- Keys of one kind in the last run, by decreasing total time.
local function top_keys(runs, index, kind)
  local last, keys = index[#runs], {}
  for key, m in pairs(last or {}) do
    if m.kind == kind then keys[#keys + 1] = key end
  end
  table.sort(keys, function(a, b) return last[a].time.sum > last[b].time.sum end)
  return keys
end

-- MPI call paths in the last run by decreasing MPI library memory still held at finalize.
local function memory_keys(runs, index)
  local last, keys = index[#runs], {}
  for key, m in pairs(last or {}) do
    if m.memory_live and m.memory_live.sum > 0 then keys[#keys + 1] = key end
  end
  table.sort(keys, function(a, b) return last[a].memory_live.sum > last[b].memory_live.sum end)
  return keys
end

local function short(key)
  return (key:gsub("^%a+:", ""):gsub(";[^>]*", ""))
end

tardy.policy("default", function(ctx)
  local runs, out, notes = ctx.runs, {}, {}
  if #runs == 0 then return {note = "no runs to predict from"} end
  local index = index_runs(runs)
  local intervals, calls = top_keys(runs, index, "interval"), top_keys(runs, index, "mpi")
  for _, target in ipairs(ctx.targets) do
    -- per interval, then the combination
    local mean_sum, missing = 0, nil
    local parts = {}
    for _, key in ipairs(intervals) do
      local pts = series(runs, index, key, function(m) return m.time.mean end)
      local model, why = model_of(pts)
      if model then
        local v = model.predict(target)
        if v == v then mean_sum = mean_sum + math.max(v, 0) end
        parts[#parts + 1] = {key = key, pts = pts}
      else
        missing = missing or why
      end
    end
    if missing and #parts == 0 then
      notes[#notes + 1] = "no predictions: " .. missing
      break
    end
    local ratio_pts = series(runs, index, "rank:compute",
      function(m) return m.value.sum > 0 and m.value.max / (m.value.sum / m.value.ranks) or nil end)
    local ratio = predict_one(out, ratio_pts, target, "spread of per-rank compute (max/mean)")
    out[#out + 1] = {target = target, metric = "per-rank compute time, mean (s)",
      value = mean_sum, family = FAMILY, model = "sum of " .. #parts .. " interval models",
      extrapolated = extrapolates(ratio_pts, target)}
    if ratio then
      out[#out + 1] = {target = target, metric = "max per-rank compute time (s)",
        value = mean_sum * ratio, family = FAMILY, model = "interval sum x spread",
        extrapolated = extrapolates(ratio_pts, target)}
    end
    predict_one(out, series(runs, index, "rank:compute", function(m) return m.value.max end),
      target, "max per-rank compute time, direct (s)")
    for i = 1, math.min(TOP, #parts) do
      predict_one(out, parts[i].pts, target, "interval " .. short(parts[i].key) .. " mean (s)")
      predict_one(out, series(runs, index, parts[i].key, function(m) return m.count.mean end),
        target, "interval " .. short(parts[i].key) .. " count per rank")
    end
    for i = 1, math.min(TOP, #calls) do
      local key = calls[i]
      predict_one(out, series(runs, index, key, function(m) return m.time.mean end), target,
        short(key) .. " time per rank (s)")
      predict_one(out, series(runs, index, key, function(m) return m.count.mean end), target,
        short(key) .. " calls per rank")
      predict_one(out, series(runs, index, key,
        function(m) return m.sent.mean + m.recv.mean end), target, short(key) .. " bytes per rank")
    end
    predict_one(out, series(runs, index, "rank:partners", function(m) return m.value.mean end),
      target, "point-to-point partners per rank")
    predict_one(out, series(runs, index, "rank:mpi_memory_high_water",
      function(m) return m.value.max end), target, "MPI library memory per rank, peak (bytes)")
    -- MPI library memory held per process (seed 001: MPI_Init's grows with the process count)
    predict_one(out, series(runs, index, "rank:mpi_memory_live", function(m) return m.value.mean end),
      target, "MPI library memory per rank at finalize, mean (bytes)")
    local held = memory_keys(runs, index)
    for i = 1, math.min(TOP, #held) do
      predict_one(out, series(runs, index, held[i], function(m)
        return m.memory_live and m.memory_live.mean end), target,
        short(held[i]) .. " MPI memory held per rank (bytes)")
    end
  end
  if #notes > 0 then out.note = table.concat(notes, "; ") end
  return out
end)
