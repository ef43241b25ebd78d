-- Scripts that fail in every way a user script can; each policy is selected by name.
tardy.family("nan", {min_points = 1, fit = function(points)
  return {formula = "nan", predict = function(x) return 0 / 0 end}
end})

tardy.policy("runtime_error", function(ctx)
  local t = nil
  return t.field -- @site runtime_error
end)

tardy.policy("endless", function(ctx)
  local i = 0 -- pcall must not swallow the budget:
  while true do local ok = pcall(function() i = i + 1 end) end -- @site endless
end)

tardy.policy("memory_bomb", function(ctx)
  local t = {}
  for i = 1, 1e9 do t[i] = string.rep("x", 1000) .. i end -- @site memory_bomb
end)

tardy.policy("garbage", function(ctx) -- @site garbage
  return {{target = {p = 4}, metric = "x", value = "not a number", family = "f", model = "m"}}
end)

tardy.policy("nan_value", function(ctx) -- @site nan_value
  local m = tardy.get_family("nan").fit({})
  return {{target = {p = 4}, metric = "x", value = m.predict({p = 4}), family = "nan",
           model = "nan"}}
end)

tardy.policy("undefined_global", function(ctx)
  return no_such_variable
end)

tardy.policy("no_such_library", function(ctx)
  return tardy.require("no_such_library") -- @site no_such_library
end)

tardy.policy("library_path", function(ctx) -- only the shipped directory, only plain names:
  return tardy.require("../policies/default") -- @site library_path
end)

-- outputs of the wrong type or range: named, not shown as "(500%)" or "+/--1.0%"
local function one(fields)
  local q = {target = {p = 4}, metric = "x", value = 2, family = "f", model = "m"}
  for k, v in pairs(fields) do q[k] = v end
  return {q}
end
tardy.policy("coverage_500", function(ctx)
  return one({low = 1, high = 3, coverage = 500})
end)
tardy.policy("negative_uncertainty", function(ctx) return one({uncertainty = -1}) end)
tardy.policy("interval_reversed", function(ctx)
  return one({low = 3, high = 1, coverage = 80})
end)
tardy.policy("ends_without_coverage", function(ctx) return one({low = 1, high = 3}) end)
tardy.policy("fit_error_text", function(ctx) return one({fit_error = "2%"}) end)
tardy.policy("note_number", function(ctx)
  local out = one({})
  out.note = 42
  return out
end)
