-- `make bench-predict`: every registered family on its own, on every per-rank metric of the
-- runs (an Extra-P file of another tool has one per region/metric), at every target.
tardy.policy("families", function(ctx)
  local out, keys, seen = {}, {}, {}
  local rows = {}
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
    local pts, scales = {}, {}
    for i, run in ipairs(ctx.runs) do
      local m = rows[i][key]
      if m and m.value then
        pts[#pts + 1] = {x = run.params, y = m.value.max}
        local s = {}
        for k, v in pairs(run.params) do s[#s + 1] = k .. "=" .. tostring(v) end
        table.sort(s)
        scales[table.concat(s, ",")] = true
      end
    end
    local n = 0
    for _ in pairs(scales) do n = n + 1 end
    pts = tardy.medians(pts) -- repetitions by their median, as the default policy does
    for _, name in ipairs(tardy.families()) do
      local spec = tardy.get_family(name)
      if n >= (spec.min_points or 3) then
        local ok, model = pcall(spec.fit, pts)
        if ok and type(model) == "table" then
          for _, target in ipairs(ctx.targets) do
            local okp, v = pcall(model.predict, target)
            if okp and type(v) == "number" and v == v and v > -math.huge and v < math.huge then
              out[#out + 1] = {target = target, metric = key .. ", max per rank", value = v,
                               family = name, model = model.formula}
            end
          end
        end
      end
    end
  end
  return out
end)
