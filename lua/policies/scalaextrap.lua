-- The seed's policy (seed 000): aggregate first, then fit. The maximum over ranks of the
-- per-rank compute time is modelled with ScalaExtrap's four models against p alone.
-- Kept for comparison: the default policy models each interval separately. Each value has
-- the 80% interval the default policy makes of its model. Runs without a
-- per-rank compute time (an Extra-P file of another tool) have every per-rank metric
-- ("region/metric") modelled the same way.

local scale_key = tardy.require("series").scale_key
local rank_max = tardy.require("names").rank_max
local best_model = tardy.require("selection").best_model
local I = tardy.require("interval")

local function rank_rows(run)
  local rows = {}
  for _, m in ipairs(run:metrics()) do
    if m.kind == "rank" then rows[m.key] = m end
  end
  return rows
end

tardy.policy("scalaextrap", function(ctx)
  local family = tardy.get_family("scalaextrap")
  -- the family alone through the default policy's selection: the same fit, with what the
  -- 80% interval is made of (its cross-validated errors, its refits on noise draws)
  local only = {{name = "scalaextrap", spec = family}}
  local keys, seen, compute = {}, {}, false
  for _, run in ipairs(ctx.runs) do
    for key in pairs(rank_rows(run)) do
      if key == "compute" then compute = true end
      if not seen[key] then seen[key] = true; keys[#keys + 1] = key end
    end
  end
  if compute then keys = {"compute"} end
  table.sort(keys)
  local out, notes = {}, {}
  if not (ctx.runs[1] and ctx.runs[1].params.p) then -- an Extra-P file without p
    return {note = "scalaextrap policy: no prediction (it models p, the number of ranks, " ..
      "and the runs have none)"}
  end
  local without = {}
  for _, target in ipairs(ctx.targets) do
    if not target.p then without[#without + 1] = scale_key(target) end
  end
  if #without > 0 then
    notes[#notes + 1] = "it models p alone, and target " .. table.concat(without, ", ") ..
      " gives none"
  end
  for _, key in ipairs(keys) do
    local points, lo, hi = {}, math.huge, -math.huge
    for _, run in ipairs(ctx.runs) do
      local m = rank_rows(run)[key]
      local v = m and m.value and m.value.max
      if v then
        points[#points + 1] = {x = {p = run.p}, y = v}
        lo, hi = math.min(lo, run.p), math.max(hi, run.p)
      end
    end
    local metric = key == "compute" and "max per-rank compute time (s)" or rank_max(key)
    local model, why = nil, "no runs"
    if #points >= family.min_points then
      model, why = best_model(only, points)
    elseif #points > 0 then
      why = string.format("too few runs: needs %d, has %d", family.min_points, #points)
    end
    if not model then
      notes[#notes + 1] = (compute and "" or metric .. ": ") .. (why or "too few runs")
    else
      for _, target in ipairs(ctx.targets) do
        if target.p then
          local v = model.predict(target)
          local low, high = I.interval(model, points, target, v, true)
          out[#out + 1] = {target = target, metric = metric, value = v, family = "scalaextrap",
            model = model.kind .. ": " .. model.formula, fit_error = model.fit_error,
            uncertainty = model.uncertainty, low = low, high = high, coverage = I.COVERAGE,
            extrapolated = target.p < lo or target.p > hi}
        end
      end
    end
  end
  if #notes > 0 then
    out.note = "scalaextrap policy: no prediction (" .. table.concat(notes, "; ") .. ")"
  end
  return out
end)
