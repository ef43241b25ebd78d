-- Acceptance 7(a): the scalaextrap family on seed 000's three series (docs/design.md 3.2) must
-- predict 1606645.3, 88104753.1 and 658495132.9.
local series = {
  {name = "POISSON_MPI", p = {64, 128, 256, 512}, t = {7938954, 4676880, 2818114, 2040480}, at = 1024},
  {name = "NPB-IS", p = {64, 128, 256, 512}, t = {644250437, 388778762, 224377159, 125488511}, at = 1024},
  {name = "LULESH", p = {216, 343, 512, 729}, t = {366978974, 428496307, 492032255, 553775812}, at = 1000},
}

tardy.policy("seed000", function(ctx)
  local family, out = tardy.get_family("scalaextrap"), {}
  for _, s in ipairs(series) do
    local points = {}
    for i = 1, #s.p do points[i] = {x = {p = s.p[i]}, y = s.t[i]} end
    local model = assert(family.fit(points))
    out[#out + 1] = {target = {p = s.at}, metric = s.name, value = model.predict({p = s.at}),
      family = "scalaextrap", model = model.kind .. ": " .. model.formula}
  end
  return out
end)
