-- The API seen from Lua: every statistic of every row of the current run, as "predictions"
-- named "kind|key|stat|field", so the test can compare them with the JSON profile.
tardy.policy("api_dump", function(ctx)
  assert(tardy.api_version == 1)
  local out, run = {}, ctx.runs[#ctx.runs]
  assert(run.current and run.p == run.params.p and run:param("p") == run.p)
  assert(not pcall(function() run.p = 3 end), "runs are read-only")
  for _, m in ipairs(run:metrics()) do
    for stat, s in pairs(m) do
      if type(s) == "table" then
        for _, field in ipairs({"sum", "mean", "max", "ranks", "p50", "p90"}) do
          if s[field] then
            out[#out + 1] = {target = {p = run.p}, metric = table.concat({m.kind, m.key, stat,
              field}, "|"), value = s[field], family = "api", model = "dump"}
          end
        end
      end
    end
  end
  return out
end)
