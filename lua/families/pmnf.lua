-- The Performance Model Normal Form (Extra-P, docs/design.md 3.4): c0 + c1 * x^i * log2(x)^j,
-- one to three parameters in every additive, multiplicative and mixed combination, chosen by
-- the mean of leave-one-out and forward-chaining SMAPE (the model carries extrap_error and
-- range(x), the near-best hypotheses' smallest and largest value at x). Negative exponents
-- are on, so strong scaling (c + k/p, n^2/p) is expressible. The hypothesis search runs in C
-- (tardy.pmnf); this file is the family's contract and the place to change its options.
-- With opts.refit (held-out and noise-draw refits) the model's predict alone is used: the
-- near-best hypotheses are not kept.

local function fit(points, opts)
  local model, why = tardy.pmnf(points, {negative = true, refit = opts and opts.refit})
  if not model then return nil, why end
  return model
end

tardy.family("pmnf", {params = 2, min_points = 3, fit = fit})
