-- Acceptance 7(b): laws recovered by the pmnf family from data with 5% noise and predicted
-- 4x beyond the largest point. One parameter: p = 1..64 (powers of two), 5 repetitions at
-- each point, every repetition a point of its own as in a run store. Two parameters: a 5 x 5
-- grid, or a cross (p = 2..64 at n = 64, n = 64..1024 at p = 2, 3 repetitions) predicted at
-- twice both, where how p and n combine is not measured: an additive law must stay additive
-- (323x too high before the additive form was preferred there), a product a product. Noise comes from a fixed
-- linear congruential sequence (tests/unit/test_predict.c checks the rate over 200 sequences).
local seed = 12345
local function noise()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return 1 + 0.05 * (2 * seed / 2147483648 - 1)
end

local laws = {
  {name = "c+k/p", f = function(x) return 2.0 + 300 / x.p end},
  {name = "c+k*p*log2(p)", f = function(x) return 5 + 0.2 * x.p * math.log(x.p, 2) end},
  {name = "c+k*p", f = function(x) return 40 + 3 * x.p end},
  -- strong scaling: work / p and an overhead growing with p, the time turning up near p = 64
  {name = "c+k/p+m*log2(p)", f = function(x) return 1 + 200 / x.p + 2 * math.log(x.p, 2) end},
  {name = "n^2/p", two = true, f = function(x) return x.n * x.n / x.p end},
  {name = "cross: c+k*log2(p)+m*n*log2(n)", cross = true,
   f = function(x) return 2 + 2 * math.log(x.p, 2) + 1e-4 * x.n * math.log(x.n, 2) end},
  {name = "cross: c+k*n^2/p", cross = true, f = function(x) return 3 + x.n * x.n / x.p end},
}

tardy.policy("recovery", function(ctx)
  local family, out = tardy.get_family("pmnf"), {}
  for _, law in ipairs(laws) do
    local points, target = {}, nil
    if law.two then
      for _, p in ipairs({2, 4, 8, 16, 32}) do
        for _, n in ipairs({64, 128, 256, 512, 1024}) do
          points[#points + 1] = {x = {p = p, n = n}, y = law.f({p = p, n = n}) * noise()}
        end
      end
      target = {p = 128, n = 4096}
    elseif law.cross then
      local xs = {}
      for _, p in ipairs({2, 4, 8, 16, 32, 64}) do xs[#xs + 1] = {p = p, n = 64} end
      for _, n in ipairs({128, 256, 512, 1024}) do xs[#xs + 1] = {p = 2, n = n} end
      for _, x in ipairs(xs) do
        for _ = 1, 3 do points[#points + 1] = {x = x, y = law.f(x) * noise()} end
      end
      target = {p = 128, n = 2048}
    else
      for _, p in ipairs({1, 2, 4, 8, 16, 32, 64}) do
        for _ = 1, 5 do points[#points + 1] = {x = {p = p}, y = law.f({p = p}) * noise()} end
      end
      target = {p = 256}
    end
    local model = assert(family.fit(points))
    out[#out + 1] = {target = target, metric = law.name, value = model.predict(target),
      family = "pmnf", model = model.formula, fit_error = model.fit_error,
      uncertainty = model.uncertainty, extrapolated = true}
    out[#out + 1] = {target = target, metric = law.name .. " actual", value = law.f(target),
      family = "truth", model = "law"}
  end
  return out
end)
