-- A user policy built on the shipped libraries (tardy.require): the max per-rank MPI time
-- of an Extra-P file's runs, its model chosen and its interval made as the default policy's.
-- what a user's script reaches is tardy's and Lua's pure libraries, nothing of the system
for _, name in ipairs({"os", "io", "package", "debug", "require", "dofile", "loadfile"}) do
  assert(rawget(_G, name) == nil, "the sandbox offers " .. name)
end
local S = tardy.require("series")
assert(rawequal(S, tardy.require("series")), "a library runs once, its value is kept")
local best_model = tardy.require("selection").best_model
local I = tardy.require("interval")

tardy.policy("library_user", function(ctx)
  local runs = S.canonical(ctx.runs)
  local index, params = S.index_runs(runs), {}
  for i, run in ipairs(runs) do params[i] = run.params end
  local families = {}
  for _, name in ipairs(tardy.families()) do
    families[#families + 1] = {name = name, spec = tardy.get_family(name)}
  end
  local pts = S.series(params, index, "rank:mpi", S.get("value", "max"))
  local model = assert(best_model(families, pts))
  local out = {}
  for _, target in ipairs(ctx.targets) do
    local v = model.predict(target)
    local lo, hi = I.interval(model, pts, target, v, true)
    out[#out + 1] = {target = target, metric = "MPI time per rank, max (s)", value = v,
      family = model.family, model = model.formula, low = lo, high = hi, coverage = I.COVERAGE}
  end
  return out
end)
