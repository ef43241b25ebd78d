-- ScalaExtrap's four models of one metric against the process count p (docs/design.md 3.2,
-- seed 000): constant, linear, inverse, inverse + constant; each with its score d1..d4,
-- the smallest score wins. The sums are tardy.scalaextrap's (in C: the default policy fits
-- every family to every series). A family is a table with fit(points, opts) returning a model
-- {formula, predict = function(x) ... end, ...} or nil and the reason (constant.lua and
-- pmnf_upper.lua are families written in Lua alone).

local FORMULA = {constant = "%.6g", linear = "%.6g * p + %.6g", inverse = "%.6g / p",
                 ["inverse+constant"] = "%.6g / p + %.6g"}

local function evaluate(name, u, v, p)
  if name == "constant" then return u end
  if name == "linear" then return u * p + v end
  if name == "inverse" then return u / p end
  return u / p + v
end

-- Fit error (SMAPE on the runs), uncertainty (leave-one-out SMAPE of the chosen form: the
-- means drop their outlier among the other runs, the lines by the closed form
-- e_i / (1 - h_i)) and extrap_error (the four models' choice on the runs below the largest
-- p, at the runs there), in percent, so that policies can compare this family with others;
-- with opts.refit the model's predict alone.
local function fit(points, opts)
  local name, u, v, score, fit_error, uncertainty, extrap_error = tardy.scalaextrap(points)
  if not name then return nil, u end
  local function predict(x) return evaluate(name, u, v, x.p) end
  if opts and opts.refit then return {predict = predict} end
  return {formula = string.format(FORMULA[name], u, v), kind = name, score = score,
          params = {"p"}, fit_error = fit_error, uncertainty = uncertainty,
          extrap_error = extrap_error, predict = predict}
end

tardy.family("scalaextrap", {params = 1, min_points = 3, fit = fit})
