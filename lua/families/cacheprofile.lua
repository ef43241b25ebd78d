-- The cache-profile models (docs/design.md 3.3, seed 004) of one metric against ONE parameter.
-- Against the process count p: linear a*p + b, inverse a + b/p (a >= 0),
-- log log(p)/log(a) + b (a > 1) and exponential a*b^-p + c (b > 1, c >= 0), each fitted by
-- least squares (the exponential through tardy.decay's search), the smallest MAPE on the
-- fitted runs wins. Against a problem size (any other parameter): linear a*x + b (a > 0). The
-- sums are tardy.cacheprofile's (in C: the default policy fits every family to every
-- series). Its fit error is the SMAPE on the fitted runs, as the other families report it.
-- The model's uncertainty is the leave-one-out SMAPE of the chosen form (as for pmnf), so
-- policies can compare families on the same footing; it comes from the leverages of the fit
-- (the left-out residual is e_i / (1 - h_i): exact for the linear forms, to first order for
-- the exponential) rather than from refitting without each point. Its extrap_error is the
-- chosen form's forward-chaining SMAPE: fitted without the runs at the largest value, at
-- those runs.

local exp, log = math.exp, math.log -- locals: used at every point

-- Each form: its value at x from the coefficients tardy.cacheprofile gives, and its formula
-- (%s the parameter).
local forms = {
  linear = {value = function(a, b) return function(x) return a * x + b end end,
            formula = function(a, b) return string.format("%.6g * %%s + %.6g", a, b) end},
  inverse = {value = function(a, b) return function(x) return a + b / x end end,
             formula = function(a, b) return string.format("%.6g + %.6g / %%s", a, b) end},
  -- log(x)/log(a) + b is linear in k = 1/log(a); a > 1 means k > 0
  log = {value = function(k, b) return function(x) return k * log(x) + b end end,
         formula = function(k, b)
           return string.format("log(%%s) / log(%.6g) + %.6g", exp(1 / k), b)
         end},
  -- a * b^-x + c with b = e^r, fitted on x - lo so that e^{-r x} stays in range; in the
  -- seed's form a e^{-r (x - lo)} = (a e^{r lo}) * (e^r)^-x
  exponential = {value = function(a, r, c, lo)
                   return function(x) return a * exp(-r * (x - lo)) + c end
                 end,
                 formula = function(a, r, c, lo)
                   return string.format("%.6g * %.6g^-%%s + %.6g", a * exp(r * lo), exp(r), c)
                 end},
}

-- With opts.refit the model's predict alone (its errors and formula left out).
local function fit(points, opts)
  local refit = opts and opts.refit or false
  local kind, name, a, b, c, d, fit_error, uncertainty, extrap_error =
    tardy.cacheprofile(points, refit)
  if not kind then return nil, name end
  local f = forms[kind].value(a, b, c, d)
  local function predict(x) return f(x[name]) end
  if refit then return {predict = predict} end
  return {formula = forms[kind].formula(a, b, c, d):gsub("%%s", name), kind = kind,
          fit_error = fit_error, uncertainty = uncertainty, params = {name},
          extrap_error = extrap_error, predict = predict}
end

tardy.family("cacheprofile", {params = 1, min_points = 3, fit = fit})
