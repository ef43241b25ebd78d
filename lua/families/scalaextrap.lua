-- ScalaExtrap's four models of one metric against the process count p (docs/design.md 3.2,
-- seed 000): constant, linear, inverse, inverse + constant; each with its score d1..d4,
-- the smallest score wins. The model carries its fit error (SMAPE on the runs), uncertainty
-- (leave-one-out SMAPE of the chosen form: the means drop their outlier among the other runs,
-- the lines by the closed form e_i / (1 - h_i)) and extrap_error (the four models' choice on
-- the runs below the largest p, at the runs there), in percent, so that policies can compare
-- this family with others. The models run in C (tardy.scalaextrap: the default policy fits
-- every family to every series); this file is the family's contract. A family is a table
-- with fit(points, opts) returning a model {formula, predict = function(x) ... end, ...} or
-- nil and the reason (constant.lua and pmnf_upper.lua are families written in Lua alone).

-- with opts.refit the model's predict alone
local function fit(points, opts)
  return tardy.scalaextrap(points, opts and opts.refit)
end

tardy.family("scalaextrap", {params = 1, min_points = 3, fit = fit})
