-- The cache-profile models (docs/design.md 3.3, seed 004) of one metric against ONE parameter.
-- Against the process count p: linear a*p + b, inverse a + b/p (a >= 0),
-- log log(p)/log(a) + b (a > 1) and exponential a*b^-p + c (b > 1, c >= 0), each fitted by
-- least squares (the exponential through tardy.decay's search), the smallest MAPE on the
-- fitted runs wins. Against a problem size (any other parameter): linear a*x + b (a > 0). The
-- models run in C (tardy.cacheprofile: the default policy fits every family to every series);
-- this file is the family's contract. Its fit error is the SMAPE on the fitted runs, as the
-- other families report it. The model's uncertainty is the leave-one-out SMAPE of the chosen
-- form (as for pmnf), so policies can compare families on the same footing; it comes from the
-- leverages of the fit (the left-out residual is e_i / (1 - h_i): exact for the linear forms,
-- to first order for the exponential) rather than from refitting without each point. Its
-- extrap_error is the chosen form's forward-chaining SMAPE: fitted without the runs at the
-- largest value, at those runs.

-- with opts.refit the model's predict alone (its errors and formula left out)
local function fit(points, opts)
  return tardy.cacheprofile(points, opts and opts.refit)
end

tardy.family("cacheprofile", {params = 1, min_points = 3, fit = fit})
