-- `make bench-predict`: every registered family on its own, on every per-rank metric of the
-- runs (an Extra-P file of another tool has one per region/metric), at every target.
local rank_max = tardy.require("names").rank_max -- the default policy's metric names

tardy.policy("families", function(ctx)
  local out, keys, seen, rows = {}, {}, {}, {}
  for i, run in ipairs(ctx.runs) do
    rows[i] = {}
    for _, m in ipairs(run:metrics()) do
      if m.kind == "rank" then
        rows[i][m.key] = m
        if not seen[m.key] then seen[m.key] = true; keys[#keys + 1] = m.key end
      end
    end
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local pts = {}
    for i, run in ipairs(ctx.runs) do
      local m = rows[i][key]
      if m and m.value then pts[#pts + 1] = {x = run.params, y = m.value.max} end
    end
    pts = tardy.medians(pts) -- repetitions by their median, as the default policy does
    for _, target in ipairs(ctx.targets) do
      local use = tardy.points_for(pts, target) -- the points the default policy would use
      for _, name in ipairs(use and tardy.families() or {}) do
        local spec = tardy.get_family(name)
        local ok, model = false, nil
        if #use >= (spec.min_points or 3) then ok, model = pcall(spec.fit, use) end
        if ok and type(model) == "table" then
          local okp, v = pcall(model.predict, target)
          if okp and type(v) == "number" and v == v and v > -math.huge and v < math.huge then
            out[#out + 1] = {target = target, metric = rank_max(key), value = v,
                             family = name, model = model.formula}
          end
        end
      end
    end
  end
  return out
end)
