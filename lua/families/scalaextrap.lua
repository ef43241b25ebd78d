-- ScalaExtrap's four models of one metric against the process count p (docs/design.md 3.2,
-- seed 000): constant, linear, inverse, inverse + constant; each with its score d1..d4,
-- the smallest score wins. Copy this file to make your own family: a family is a table with
-- fit(points, opts) returning a model {formula, predict = function(x) ... end, score, ...}
-- or nil and the reason.

local abs, sqrt = math.abs, math.sqrt

-- Mean of v without the sample farthest from the mean (ScalaExtrap's outlier rule), and
-- without v[skip] (leave-one-out; nil: none); that sample's index and how many remain. The
-- farthest sample is the smallest or the largest (the first of them on a tie), so one pass
-- finds it.
local function robust_mean(v, skip)
  local s, n, lo, hi, vlo, vhi = 0, 0, nil, nil, nil, nil
  for i = 1, #v do
    if i ~= skip then
      local x = v[i]
      s, n = s + x, n + 1
      if not lo or x < vlo then lo, vlo = i, x end
      if not hi or x > vhi then hi, vhi = i, x end
    end
  end
  local m, at = s / n, nil
  if n >= 3 then
    local dl, dh = abs(vlo - m), abs(vhi - m)
    if dl > dh then at = lo elseif dh > dl then at = hi else at = math.min(lo, hi) end
  end
  local c, k = 0, 0
  for i = 1, #v do if i ~= skip and i ~= at then c, k = c + v[i], k + 1 end end
  return c / k, at, k
end

-- robust_mean(v) and the sample standard deviation (divides by count - 1) of the same
-- samples. With the sample form the selection reproduces all three of the seed's
-- predictions; with the population form NPB-IS would pick the inverse model (d3 0.1035 <
-- d4 0.1067) instead of the seed's inverse + constant.
local function robust_mean_sd(v)
  local c, at, k = robust_mean(v)
  local q = 0
  for i = 1, #v do
    if i ~= at then
      local d = v[i] - c
      q = q + d * d
    end
  end
  return c, sqrt(q / (k - 1))
end

-- Least squares y = a x + b (closed form); a, b and sqrt(residual) / mean(fitted).
local function line(xs, ys)
  local n, xm, ym = #xs, 0, 0
  for i = 1, n do xm, ym = xm + xs[i], ym + ys[i] end
  xm, ym = xm / n, ym / n
  local sxx, sxy = 0, 0
  for i = 1, n do
    local d = xs[i] - xm
    sxx, sxy = sxx + d * d, sxy + d * (ys[i] - ym)
  end
  local a = sxy / sxx
  local b, rss = ym - a * xm, 0
  for i = 1, n do
    local e = ys[i] - a * xs[i] - b
    rss = rss + e * e
  end
  return a, b, sqrt(rss) / abs(a * xm + b) -- the mean of the fitted values
end

local FORMULA = {constant = "%.6g", linear = "%.6g * p + %.6g", inverse = "%.6g / p",
                 ["inverse+constant"] = "%.6g / p + %.6g"}

local function evaluate(name, u, v, p)
  if name == "constant" then return u end
  if name == "linear" then return u * p + v end
  if name == "inverse" then return u / p end
  return u / p + v
end

-- The four models scored by d1..d4; the best as {name, u, v} (evaluate(name, u, v, p)).
-- nil and the reason with too few runs.
local function select(points)
  local n, t, k = {}, {}, {}
  for i, pt in ipairs(points) do n[i], t[i] = pt.x.p, pt.y; k[i] = t[i] * n[i] end
  if #t < 3 then return nil, "needs 3 runs at different process counts, has " .. #t end
  local best = {}
  local function consider(name, score, u, v)
    if score == score and (not best.score or score < best.score) then
      best.name, best.score, best.u, best.v = name, score, u, v
    end
  end
  local c, sdc = robust_mean_sd(t)
  consider("constant", c ~= 0 and sdc / abs(c) or math.huge, c)
  local a, b, d2 = line(n, t)
  consider("linear", d2, a, b)
  local kk, sdk = robust_mean_sd(k)
  consider("inverse", sdk / abs(kk), kk)
  local c4, k4, d4 = line(n, k) -- t n = c n + k
  consider("inverse+constant", d4, k4, c4)
  if not best.name then return nil, "no model scores" end
  return best
end

-- Leave-one-out predictions of the chosen model's form (as pmnf and cacheprofile do: the form
-- stays, its coefficients are refitted without each run). The means drop their outlier among
-- the other runs; the two lines use the closed form e_i / (1 - h_i).
local function loo_predictions(name, n, t)
  local m, pred = #n, {}
  if name == "constant" or name == "inverse" then
    local v = {}
    for j = 1, m do v[j] = name == "constant" and t[j] or t[j] * n[j] end
    for i = 1, m do
      local c = robust_mean(v, i)
      pred[i] = name == "constant" and c or c / n[i]
    end
    return pred
  end
  local y = {}
  for i = 1, m do y[i] = name == "linear" and t[i] or t[i] * n[i] end -- t n = c n + k
  local a, b = line(n, y)
  local xm, sxx = 0, 0
  for i = 1, m do xm = xm + n[i] / m end
  for i = 1, m do
    local d = n[i] - xm
    sxx = sxx + d * d
  end
  for i = 1, m do
    local d = n[i] - xm
    local h = 1 / m + d * d / sxx
    local yi = y[i] - (y[i] - (a * n[i] + b)) / (1 - h)
    pred[i] = name == "linear" and yi or yi / n[i]
  end
  return pred
end

-- The training points of the last forward chaining and select's choice on them: the default
-- policy refits the family on the very same points right after its fit (lib/selection.lua,
-- holdout), and select depends on the points alone.
local chained = {}
local function chained_choice(points)
  local train = chained.train
  if not train or #train ~= #points then return nil end
  for i = 1, #points do
    if points[i] ~= train[i] then return nil end
  end
  return chained.best
end

-- Forward chaining (what a prediction does): the four models scored on the runs below the
-- largest p, the best of them at the runs at the largest p; their SMAPE (percent), or nil
-- when fewer than 3 smaller process counts remain.
local function extrap(points)
  local top, below, seen, train, actual, pred = -math.huge, 0, {}, {}, {}, {}
  for _, pt in ipairs(points) do top = math.max(top, pt.x.p) end
  for _, pt in ipairs(points) do
    if pt.x.p < top then
      train[#train + 1] = pt
      if not seen[pt.x.p] then seen[pt.x.p], below = true, below + 1 end
    end
  end
  if below < 3 then return nil end
  local best = select(train)
  if not best then return nil end
  chained.train, chained.best = train, best
  for _, pt in ipairs(points) do
    if pt.x.p == top then
      actual[#actual + 1], pred[#pred + 1] = pt.y, evaluate(best.name, best.u, best.v, top)
    end
  end
  return tardy.smape(actual, pred)
end

-- Fit error (SMAPE on the runs), uncertainty (leave-one-out SMAPE of the chosen form) and
-- extrap_error in percent, so that policies can compare this family with others; with
-- opts.refit the model's predict alone.
local function fit(points, opts)
  for _, pt in ipairs(points) do
    for k, v in pairs(pt.x) do
      if k ~= "p" and v ~= points[1].x[k] then
        return nil, "scalaextrap models the process count only (" .. k .. " varies)"
      end
    end
  end
  local best, why = chained_choice(points), nil
  if not best then best, why = select(points) end
  if not best then return nil, why end
  local name, u, v = best.name, best.u, best.v
  local function predict(x) return evaluate(name, u, v, x.p) end
  if opts and opts.refit then return {predict = predict} end
  local actual, fitted, n = {}, {}, {}
  for i, pt in ipairs(points) do
    actual[i], fitted[i], n[i] = pt.y, evaluate(name, u, v, pt.x.p), pt.x.p
  end
  local uncertainty
  if #points >= 4 then uncertainty = tardy.smape(actual, loo_predictions(name, n, actual)) end
  return {formula = string.format(FORMULA[name], u, v), kind = name, score = best.score,
          params = {"p"}, fit_error = tardy.smape(actual, fitted), uncertainty = uncertainty,
          extrap_error = extrap(points), predict = predict}
end

tardy.family("scalaextrap", {params = 1, min_points = 3, fit = fit})
