-- The one-parameter families' refusals (tardy.scalaextrap, tardy.cacheprofile in C): every
-- reason reaches the policy as the family's second result, one note each.
local function pts(xs, ys)
  local out = {}
  for i, x in ipairs(xs) do out[i] = {x = x, y = ys[i]} end -- ys[i] nil: a point without y
  return out
end

local cases = {
  {"scalaextrap", pts({{p = 1}, {p = 2}}, {1, 2})},
  {"scalaextrap", pts({{p = 1, n = 8}, {p = 2, n = 8}, {p = 4, n = 16}}, {1, 2, 3})},
  {"cacheprofile", pts({{p = 1}, {p = 2}}, {1, 2})},
  {"cacheprofile", pts({{p = 1, n = 8}, {p = 2, n = 9}, {p = 4, n = 16}}, {1, 2, 3})},
  {"cacheprofile", pts({{p = 4}, {p = 4}, {p = 4}}, {1, 2, 3})},
  {"cacheprofile", pts({{p = 1}, {p = 2}, {p = 4}}, {1, 0, 3})},
  {"cacheprofile", pts({{n = 1}, {n = 2}, {n = 4}}, {9, 5, 1})},
  {"scalaextrap", pts({{p = 1}, {p = 2}, {p = 4}}, {1, nil, 3})},
}

tardy.policy("one_parameter", function()
  local notes = {}
  for i, c in ipairs(cases) do
    local model, why = tardy.get_family(c[1]).fit(c[2])
    notes[i] = string.format("%s %d: %s", c[1], i, model and "a model" or why)
  end
  return {note = table.concat(notes, "; ")}
end)
