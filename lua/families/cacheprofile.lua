-- The cache-profile models (docs/design.md 3.3, seed 004) of one metric against ONE parameter.
-- Against the process count p: linear a*p + b, inverse a + b/p (a >= 0),
-- log log(p)/log(a) + b (a > 1) and exponential a*b^-p + c (b > 1, c >= 0), each fitted by
-- least squares (the exponential through tardy.decay), the smallest MAPE on the fitted runs
-- wins. Against a problem size (any other parameter): linear a*x + b (a > 0). Its fit error
-- is the SMAPE on the fitted runs, as the other families report it.
-- The model's uncertainty is the leave-one-out SMAPE of the chosen form (as for pmnf), so
-- policies can compare families on the same footing; it comes from the leverages of the fit
-- (the left-out residual is e_i / (1 - h_i): exact for the linear forms, to first order for
-- the exponential) rather than from refitting without each point. Its extrap_error is the
-- chosen form's forward-chaining SMAPE: fitted without the runs at the largest value, at
-- those runs.

local exp, log, min, max = math.exp, math.log, math.min, math.max -- locals: used at every point

local function column(points, name)
  local v = {}
  for i, pt in ipairs(points) do v[i] = pt.x[name] end
  return v
end

-- The one parameter that varies over the points, or nil and the reason.
local function varying(points)
  local names = tardy.varying(points)
  if #names > 1 then return nil, "cacheprofile models one parameter at a time (" ..
    table.concat(names, " and ") .. " vary)" end
  if #names == 0 then return nil, "no parameter varies over the runs" end
  return names[1]
end

-- Least squares y = c0 + c1 * t in closed form: c0, c1 and a function giving the leverages,
-- or nil when t does not vary. (tardy.lsq does any linear model; two coefficients need no
-- matrix.)
local function line(ts, ys)
  local n, tm, ym = #ts, 0, 0
  for i = 1, n do tm, ym = tm + ts[i], ym + ys[i] end
  tm, ym = tm / n, ym / n
  local sxx, sxy = 0, 0
  for i = 1, n do
    local d = ts[i] - tm
    sxx, sxy = sxx + d * d, sxy + d * (ys[i] - ym)
  end
  if not (sxx > 1e-300 * (tm * tm + 1)) then return nil end
  local c1 = sxy / sxx
  return ym - c1 * tm, c1, function()
    local h = {}
    for i = 1, n do
      local d = ts[i] - tm
      h[i] = 1 / n + d * d / sxx
    end
    return h
  end
end

-- t_i = f(x_i)
local function map(xs, f)
  local t = {}
  for i, x in ipairs(xs) do t[i] = f(x) end
  return t
end

-- Each form: fit(xs, ys, size) -> f(x), leverages(), formula() | nil. Constraints as in the
-- seed. The leverages and the formula are asked of the chosen form only, and not on a refit
-- (the default policy refits every family on the smaller scales and on noise draws; the
-- exponential's leverages, a least-squares fit of its Jacobian, cost half as much as its
-- fit: on 10 runs x 1,000 intervals 38e6 instructions, asked of the chosen form 6e6).
local forms = {}

forms.linear = function(xs, ys, size)
  local b, a, leverages = line(xs, ys)
  if not b or (size and a <= 0) then return nil end -- problem size: a > 0
  return function(x) return a * x + b end, leverages,
    function() return string.format("%.6g * %%s + %.6g", a, b) end
end

forms.inverse = function(xs, ys)
  local t = map(xs, function(x) return 1 / x end)
  local a, b, leverages = line(t, ys)
  if not a then return nil end
  if a < 0 then -- the constrained optimum lies on a = 0: y = b / x
    local stt, sty = 0, 0
    for i, ti in ipairs(t) do stt, sty = stt + ti * ti, sty + ti * ys[i] end
    a, b, leverages = 0, sty / stt, function()
      local h = {}
      for i, ti in ipairs(t) do h[i] = ti * ti / stt end
      return h
    end
  end
  return function(x) return a + b / x end, leverages,
    function() return string.format("%.6g + %.6g / %%s", a, b) end
end

forms.log = function(xs, ys)
  -- log(x)/log(a) + b is linear in k = 1/log(a); a > 1 means k > 0
  local b, k, leverages = line(map(xs, log), ys)
  if not b or k <= 0 then return nil end
  return function(x) return k * log(x) + b end, leverages,
    function() return string.format("log(%%s) / log(%.6g) + %.6g", exp(1 / k), b) end
end

forms.exponential = function(xs, ys)
  -- a * b^-x + c with b = e^r, r > 0, c >= 0 (tardy.decay: the rate by a one-dimensional
  -- search, a and c in closed form), on x - lo so that e^{-r x} stays in range
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(xs) do lo, hi = min(lo, x), max(hi, x) end
  if hi <= lo then return nil end
  local xt = {}
  for i, x in ipairs(xs) do xt[i] = x - lo end
  local a, r, c = tardy.decay(xt, ys)
  if not a then return nil end
  -- leverages from the Jacobian of a e^{-r x} + c in (a, r, c); c at its bound is fixed
  local function leverages()
    local rows = {}
    for i, x in ipairs(xt) do
      local e = exp(-r * x)
      rows[i] = c > 0 and {e, -a * x * e, 1} or {e, -a * x * e}
    end
    local _, _, h = tardy.lsq(rows, ys)
    return h
  end
  -- in the seed's form: a e^{-r (x - lo)} = (a e^{r lo}) * (e^r)^-x
  return function(x) return a * exp(-r * (x - lo)) + c end, leverages, function()
    return string.format("%.6g * %.6g^-%%s + %.6g", a * exp(r * lo), exp(r), c)
  end
end

local CORE_FORMS = {"linear", "inverse", "log", "exponential"}

-- Leave-one-out SMAPE (percent) from the leverages of a fit f; nil without them.
local function loo(f, xs, ys, leverages)
  if #xs < 3 then return nil end
  local h = leverages()
  if not h then return nil end
  local pred = {}
  for i, x in ipairs(xs) do
    if not h[i] or h[i] >= 1 - 1e-9 then return nil end
    pred[i] = ys[i] - (ys[i] - f(x)) / (1 - h[i])
  end
  return tardy.smape(ys, pred)
end

-- Forward chaining (what a prediction does): the chosen form fitted on the runs below the
-- largest x predicts the runs at the largest x; their SMAPE (percent), or nil when fewer than
-- 3 smaller values remain.
local function extrap(form, xs, ys, size)
  local top, below, seen = -math.huge, 0, {}
  for _, x in ipairs(xs) do top = max(top, x) end
  local tx, ty, hx, hy = {}, {}, {}, {}
  for i, x in ipairs(xs) do
    if x < top then
      tx[#tx + 1], ty[#ty + 1] = x, ys[i]
      if not seen[x] then seen[x], below = true, below + 1 end
    else
      hx[#hx + 1], hy[#hy + 1] = x, ys[i]
    end
  end
  -- more smaller values than the form has coefficients (the exponential has 3)
  if below < (form == "exponential" and 4 or 3) then return nil end
  local f = forms[form](tx, ty, size)
  if not f then return nil end
  local pred = {}
  for i, x in ipairs(hx) do pred[i] = f(x) end
  return tardy.smape(hy, pred)
end

-- With opts.refit the model's predict alone (its errors and formula left out).
local function fit(points, opts)
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
    local f, leverages, formula = forms[form](xs, ys, size)
    if f then
      local pred = {}
      for i, x in ipairs(xs) do pred[i] = f(x) end
      local mape = tardy.mape(ys, pred)
      if mape and mape == mape and (not best or mape < best.mape) then
        best = {form = form, f = f, formula = formula, mape = mape,
                leverages = leverages, pred = pred}
      end
    end
  end
  if not best then return nil, "no cache-profile model fits" end
  local f = best.f
  if opts and opts.refit then return {predict = function(x) return f(x[name]) end} end
  -- chosen by MAPE as the seed does; its fit error in SMAPE as every family reports it (a
  -- MAPE against runs near 0 read 20898%)
  return {formula = best.formula():gsub("%%s", name), kind = best.form,
          fit_error = tardy.smape(ys, best.pred),
          uncertainty = loo(f, xs, ys, best.leverages), params = {name},
          extrap_error = extrap(best.form, xs, ys, size),
          predict = function(x) return f(x[name]) end}
end

tardy.family("cacheprofile", {params = 1, min_points = 3, fit = fit})
