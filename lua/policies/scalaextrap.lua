-- The seed's policy (seed 000): aggregate first, then fit. The maximum over ranks of the
-- per-rank compute time is modelled with ScalaExtrap's four models against p alone.
-- Kept for comparison: the default policy models each interval separately.

local function compute_max(run)
  for _, m in ipairs(run:metrics()) do
    if m.kind == "rank" and m.key == "compute" then return m.value.max end
  end
end

tardy.policy("scalaextrap", function(ctx)
  local family = tardy.get_family("scalaextrap")
  local points, lo, hi = {}, math.huge, -math.huge
  for _, run in ipairs(ctx.runs) do
    local v = compute_max(run)
    if v then
      points[#points + 1] = {x = {p = run.p}, y = v}
      lo, hi = math.min(lo, run.p), math.max(hi, run.p)
    end
  end
  local out = {}
  local model, why = nil, "no runs"
  if #points >= family.min_points then model, why = family.fit(points) end
  if not model then
    out.note = "scalaextrap policy: no prediction (" .. (why or "too few runs") .. ")"
    return out
  end
  for _, target in ipairs(ctx.targets) do
    if target.p then
      out[#out + 1] = {target = target, metric = "max per-rank compute time (s)",
        value = model.predict(target), family = "scalaextrap",
        model = model.kind .. ": " .. model.formula,
        extrapolated = target.p < lo or target.p > hi}
    end
  end
  return out
end)
