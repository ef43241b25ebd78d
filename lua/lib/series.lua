-- The runs of a store as series to fit: scales, the runs indexed by row, the points of one
-- statistic over the scales (a median per scale), the rows reported one by one, and the
-- runs in the order that makes predictions reproducible. Shared by the shipped policies
-- (tardy.require("series")).

local type = type

-- v - v is 0 for every finite number and NaN for NaN and the infinities (the policies ask
-- this of every value they fit: one subtraction, no global looked up)
local function finite(v)
  return type(v) == "number" and v - v == 0
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

-- At how many values of parameter b the runs have two values of a or more (a varied alone).
local function varied_alone(params, a, b)
  local at, count = {}, 0
  for _, x in ipairs(params) do
    if type(x[a]) == "number" and type(x[b]) == "number" then
      at[x[b]] = at[x[b]] or {}
      at[x[b]][x[a]] = true
    end
  end
  for _, values in pairs(at) do
    if next(values, next(values)) then count = count + 1 end
  end
  return count
end

-- The runs vary a and b one at a time: each alone somewhere, and neither at two values of the
-- other (which would measure how they combine: PMNF then tells c0 + c1·f·g, c0 + c1·f + c2·g
-- and the mixed forms apart). Runs along a line where both change together (weak scaling) do
-- not vary them one at a time.
local function one_at_a_time(params, a, b)
  local ab, ba = varied_alone(params, a, b), varied_alone(params, b, a)
  return ab == 1 and ba == 1
end

-- Two parameters that the runs vary one at a time where the target lies off every line
-- through the runs (each run differs from it in two parameters or more): how they combine at
-- the target is not measured. Returns their names, or nil.
local function uncombined(params, target)
  for _, x in ipairs(params) do
    local off = 0
    for k, v in pairs(target) do
      if x[k] ~= v then off = off + 1 end
    end
    if off <= 1 then return nil end
  end
  local names = {}
  for k in pairs(target) do
    local lo, hi = range(params, k)
    if lo < hi then names[#names + 1] = k end
  end
  table.sort(names)
  for i = 1, #names do
    for j = i + 1, #names do
      if one_at_a_time(params, names[i], names[j]) then return names[i], names[j] end
    end
  end
  return nil
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

-- The run with the most wall time (summed over ranks), among those the run with the most rows
-- (an Extra-P file has no wall time, and a metric with fewer repetitions than another is
-- absent from the later repetitions' runs: taking one of those lost the metric). Kept per
-- index: the policy asks for every row it reports.
local chosen = setmetatable({}, {__mode = "k"})
local function reference(index)
  if chosen[index] then return chosen[index] end
  local best, most, widest = #index, -1, -1
  for i, rows in ipairs(index) do
    local wall = rows["rank:wall"]
    local t, n = wall and wall.value and wall.value.sum or 0, 0
    for _ in pairs(rows) do n = n + 1 end
    if t > most or (t == most and n > widest) then best, most, widest = i, t, n end
  end
  chosen[index] = index[best]
  return index[best]
end

-- Keys of the reference run's rows of one kind, by decreasing order(metric).
local function keys_of(index, kind, order)
  local keys, by = {}, {} -- by: order(metric) of each key, asked once, not at every comparison
  for key, m in pairs(reference(index)) do
    if m.kind == kind then keys[#keys + 1], by[key] = key, order(m) or 0 end
  end
  table.sort(keys, function(a, b)
    local x, y = by[a], by[b]
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
-- reported one by one) is chosen by reference() whatever the order.
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

-- The runs whose hosts had more ranks than CPUs (the per-rank metric ranks_per_cpu above 1
-- on some rank; index from index_runs): their rank counts ascending ("p=4"; their scales
-- where the runs have no p), and the most ranks per CPU among them; nil when there are none.
local function crowded(runs, index)
  local seen, which, most = {}, {}, 1
  for i, run in ipairs(runs) do
    local m = index[i]["rank:ranks_per_cpu"]
    local v = m and m.value and m.value.max
    if finite(v) and v > 1 then
      local p = run.params.p
      local name = p and scale_key({p = p}) or scale_key(run.params)
      if not seen[name] then seen[name], which[#which + 1] = p or math.huge, name end
      most = math.max(most, v)
    end
  end
  if #which == 0 then return nil end
  table.sort(which, function(a, b)
    if seen[a] ~= seen[b] then return seen[a] < seen[b] end
    return a < b
  end)
  return which, most
end

return {finite = finite, scale_key = scale_key, distinct = distinct, range = range,
  extrapolates = extrapolates, uncombined = uncombined, index_runs = index_runs, series = series, get = get,
  reference = reference, keys_of = keys_of, other_kinds = other_kinds, stats_of = stats_of,
  canonical = canonical, newest = newest, crowded = crowded}
