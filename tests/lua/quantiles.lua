-- The per-rank quantiles of every row's time next to the row's extremes, as "predictions"
-- named "key|field", so the test can check that they lie between them; those of a rank row's
-- value (per-rank compute) as "key|value|field".
tardy.policy("quantiles", function(ctx)
  local out, run = {}, ctx.runs[#ctx.runs]
  for _, m in ipairs(run:metrics()) do
    if m.time and m.time.p90 then
      for _, field in ipairs({"min", "max", "p50", "p90"}) do
        out[#out + 1] = {target = {p = run.p}, metric = m.key .. "|" .. field,
                         value = m.time[field], family = "api", model = "dump"}
      end
    end
    if m.value and m.value.p50 then
      for _, field in ipairs({"min", "max", "mean", "p50", "p90"}) do
        out[#out + 1] = {target = {p = run.p}, metric = m.key .. "|value|" .. field,
                         value = m.value[field], family = "api", model = "dump"}
      end
    end
  end
  return out
end)
