-- ScalaExtrap's four models of one metric against the process count p (DESIGN.md 3.2,
-- seed 000): constant, linear, inverse, inverse + constant; each with its score d1..d4,
-- the smallest score wins. Copy this file to make your own family: a family is a table with
-- fit(points, opts) returning a model {formula, predict = function(x) ... end, score, ...}
-- or nil and the reason.

local function mean(v)
  local s = 0
  for _, x in ipairs(v) do s = s + x end
  return s / #v
end

-- Sample standard deviation (divides by count - 1). With it the selection reproduces all
-- three of the seed's predictions; with the population form NPB-IS would pick the inverse
-- model (d3 0.1035 < d4 0.1067) instead of the seed's inverse + constant.
local function sd(v)
  local m, s = mean(v), 0
  for _, x in ipairs(v) do s = s + (x - m) ^ 2 end
  return math.sqrt(s / (#v - 1))
end

-- v without the sample farthest from the mean (ScalaExtrap's outlier rule).
local function drop_outlier(v)
  if #v < 3 then return v end
  local m, worst, at = mean(v), -1, 1
  for i, x in ipairs(v) do
    if math.abs(x - m) > worst then worst, at = math.abs(x - m), i end
  end
  local rest = {}
  for i, x in ipairs(v) do if i ~= at then rest[#rest + 1] = x end end
  return rest
end

-- Least squares y = a x + b, with the residual sum of squares.
local function line(xs, ys)
  local rows = {}
  for i, x in ipairs(xs) do rows[i] = {x, 1} end
  local coef, rss = tardy.lsq(rows, ys)
  return coef[1], coef[2], rss
end

-- The four models, the one with the smallest score; nil and the reason with too few runs.
local function select(points)
  local n, t = {}, {}
  for i, pt in ipairs(points) do n[i], t[i] = pt.x.p, pt.y end
  if #t < 3 then return nil, "needs 3 runs at different process counts, has " .. #t end
  local models = {}

  local rest = drop_outlier(t)
  local c = mean(rest)
  models[#models + 1] = {name = "constant", score = c ~= 0 and sd(rest) / math.abs(c) or math.huge,
    formula = string.format("%.6g", c), f = function() return c end}

  local a, b, rss = line(n, t)
  local fitted = {}
  for i, x in ipairs(n) do fitted[i] = a * x + b end
  models[#models + 1] = {name = "linear", score = math.sqrt(rss) / math.abs(mean(fitted)),
    formula = string.format("%.6g * p + %.6g", a, b), f = function(p) return a * p + b end}

  local k = {}
  for i, x in ipairs(n) do k[i] = t[i] * x end
  local krest = drop_outlier(k)
  local kk = mean(krest)
  models[#models + 1] = {name = "inverse", score = sd(krest) / math.abs(kk),
    formula = string.format("%.6g / p", kk), f = function(p) return kk / p end}

  local c4, k4, rss4 = line(n, k)
  local fitted4 = {}
  for i, x in ipairs(n) do fitted4[i] = c4 * x + k4 end
  models[#models + 1] = {name = "inverse+constant",
    score = math.sqrt(rss4) / math.abs(mean(fitted4)),
    formula = string.format("%.6g / p + %.6g", k4, c4), f = function(p) return k4 / p + c4 end}

  local best = models[1]
  for _, m in ipairs(models) do
    if m.score == m.score and m.score < best.score then best = m end
  end
  return best
end

-- Fit error (SMAPE on the runs) and uncertainty (leave-one-out SMAPE of the whole selection)
-- in percent, so that policies can compare this family with others.
local function fit(points)
  for _, pt in ipairs(points) do
    for k, v in pairs(pt.x) do
      if k ~= "p" and v ~= points[1].x[k] then
        return nil, "scalaextrap models the process count only (" .. k .. " varies)"
      end
    end
  end
  local best, why = select(points)
  if not best then return nil, why end
  local actual, fitted, loo = {}, {}, {}
  for i, pt in ipairs(points) do actual[i], fitted[i] = pt.y, best.f(pt.x.p) end
  local uncertainty
  if #points >= 4 then
    for i = 1, #points do
      local rest = {}
      for j, pt in ipairs(points) do if j ~= i then rest[#rest + 1] = pt end end
      local m = select(rest)
      loo[i] = m and m.f(points[i].x.p) or 0 / 0
    end
    uncertainty = tardy.smape(actual, loo)
  end
  local f = best.f
  return {formula = best.formula, kind = best.name, score = best.score, params = {"p"},
          fit_error = tardy.smape(actual, fitted), uncertainty = uncertainty,
          predict = function(x) return f(x.p) end}
end

tardy.family("scalaextrap", {params = 1, min_points = 3, fit = fit})
