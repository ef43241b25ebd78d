-- The cache-profile models (DESIGN.md 3.3, seed 004) of one metric against ONE parameter.
-- Against the process count p: linear a*p + b, inverse a + b/p (a >= 0),
-- log log(p)/log(a) + b (a > 1) and exponential a*b^-p + c (b > 1, c >= 0), each fitted by
-- least squares (Levenberg-Marquardt for the exponential), the smallest MAPE on the fitted
-- runs wins. Against a problem size (any other parameter): linear a*x + b (a > 0).
-- The model's uncertainty is the leave-one-out SMAPE of the chosen form (as for pmnf), so
-- policies can compare families on the same footing.

local function column(points, name)
  local v = {}
  for i, pt in ipairs(points) do v[i] = pt.x[name] end
  return v
end

-- The one parameter that varies over the points, or nil and the reason.
local function varying(points)
  local found
  for name, first in pairs(points[1].x) do
    if type(first) == "number" then
      for i = 2, #points do
        if points[i].x[name] ~= first then
          if found then return nil, "cacheprofile models one parameter at a time (" ..
            found .. " and " .. name .. " vary)" end
          found = name
          break
        end
      end
    end
  end
  if not found then return nil, "no parameter varies over the runs" end
  return found
end

-- Least squares y = sum_j c_j * basis_j(x); coefficients or nil.
local function linear_fit(xs, ys, basis)
  local rows = {}
  for i, x in ipairs(xs) do
    local r = {}
    for j, f in ipairs(basis) do r[j] = f(x) end
    rows[i] = r
  end
  local coef = tardy.lsq(rows, ys)
  return coef
end

local function one(x) return 1 end
local function ident(x) return x end
local function recip(x) return 1 / x end
local function ln(x) return math.log(x) end

-- Each form: fit(xs, ys) -> f(x), formula | nil. Constraints as in the seed.
local forms = {}

forms.linear = function(xs, ys, size)
  local c = linear_fit(xs, ys, {ident, one})
  if not c or (size and c[1] <= 0) then return nil end -- problem size: a > 0
  local a, b = c[1], c[2]
  return function(x) return a * x + b end, string.format("%.6g * %%s + %.6g", a, b)
end

forms.inverse = function(xs, ys)
  local c = linear_fit(xs, ys, {one, recip})
  if not c then return nil end
  local a, b = c[1], c[2]
  if a < 0 then -- the constrained optimum lies on a = 0
    local k = linear_fit(xs, ys, {recip})
    if not k then return nil end
    a, b = 0, k[1]
  end
  return function(x) return a + b / x end, string.format("%.6g + %.6g / %%s", a, b)
end

forms.log = function(xs, ys)
  -- log(x)/log(a) + b is linear in k = 1/log(a); a > 1 means k > 0
  local c = linear_fit(xs, ys, {ln, one})
  if not c or c[1] <= 0 then return nil end
  local k, b = c[1], c[2]
  return function(x) return k * math.log(x) + b end,
    string.format("log(%%s) / log(%.6g) + %.6g", math.exp(1 / k), b)
end

forms.exponential = function(xs, ys)
  -- a * b^-x + c with b = e^r, r > 0, c >= 0. Start from the best decay rate of a coarse
  -- grid (a and c by least squares for a fixed rate), then Levenberg-Marquardt.
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(xs) do lo, hi = math.min(lo, x), math.max(hi, x) end
  if hi <= lo then return nil end
  local best, start
  for _, k in ipairs({0.3, 1, 3, 10}) do
    local r = k / (hi - lo)
    local c = linear_fit(xs, ys, {function(x) return math.exp(-r * (x - lo)) end, one})
    if c and c[2] >= 0 then
      local rss = 0
      for i, x in ipairs(xs) do rss = rss + (c[1] * math.exp(-r * (x - lo)) + c[2] - ys[i]) ^ 2 end
      if not best or rss < best then best, start = rss, {c[1], r, c[2]} end
    end
  end
  if not start then return nil end
  local xt = {}
  for i, x in ipairs(xs) do xt[i] = x - lo end
  local q = tardy.lm(function(p, x) return p[1] * math.exp(-p[2] * x) + p[3] end, start, xt, ys,
                     {-math.huge, 1e-12, 0}, {math.huge, math.huge, math.huge}, 100)
  if not q then return nil end
  local a, r, c = q[1], q[2], q[3]
  -- in the seed's form: a e^{-r (x - lo)} = (a e^{r lo}) * (e^r)^-x
  return function(x) return a * math.exp(-r * (x - lo)) + c end,
    string.format("%.6g * %.6g^-%%s + %.6g", a * math.exp(r * lo), math.exp(r), c)
end

local CORE_FORMS = {"linear", "inverse", "log", "exponential"}

-- Fit one form, or nil.
local function fit_form(name, xs, ys, size)
  return forms[name](xs, ys, size)
end

-- Leave-one-out SMAPE of one form (percent), nil when a fold cannot be fitted.
local function loo(name, xs, ys, size)
  if #xs < 3 then return nil end
  local actual, pred = {}, {}
  for i = 1, #xs do
    local sx, sy = {}, {}
    for j = 1, #xs do
      if j ~= i then sx[#sx + 1], sy[#sy + 1] = xs[j], ys[j] end
    end
    local f = fit_form(name, sx, sy, size)
    if not f then return nil end
    actual[i], pred[i] = ys[i], f(xs[i])
  end
  return tardy.smape(actual, pred)
end

local function fit(points)
  if #points < 3 then return nil, "needs 3 runs, has " .. #points end
  local name, why = varying(points)
  if not name then return nil, why end
  local xs, ys = column(points, name), {}
  for i, pt in ipairs(points) do ys[i] = pt.y end
  for _, y in ipairs(ys) do
    if y == 0 then return nil, "MAPE selection needs non-zero values" end
  end
  local size = name ~= "p"
  local best
  for _, form in ipairs(size and {"linear"} or CORE_FORMS) do
    local f, formula = fit_form(form, xs, ys, size)
    if f then
      local pred = {}
      for i, x in ipairs(xs) do pred[i] = f(x) end
      local mape = tardy.mape(ys, pred)
      if mape and mape == mape and (not best or mape < best.mape) then
        best = {form = form, f = f, formula = formula:gsub("%%s", name), mape = mape}
      end
    end
  end
  if not best then return nil, "no cache-profile model fits" end
  local f = best.f
  return {formula = best.formula, kind = best.form, fit_error = best.mape,
          uncertainty = loo(best.form, xs, ys, size), params = {name},
          predict = function(x) return f(x[name]) end}
end

tardy.family("cacheprofile", {params = 1, min_points = 3, fit = fit})
