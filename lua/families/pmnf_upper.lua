-- PMNF on the upper regime of one parameter: fitted to the points at its four largest values
-- when it has seven or more. Collective latencies change law beyond a node (shared memory,
-- then the network): a law fitted to the whole range bends toward the small scales and
-- extrapolates short (a 1.3x step at 16 ranks: the log p laws 14% low at 512), while the
-- upper regime holds the law that goes on. It competes like every family, by its
-- forward-chaining error (the default policy refits it on the smaller scales), and offers
-- nothing when the upper points follow no law: a law through four points that misses them
-- by more than their noise (where the runs repeat: the default policy's lack-of-fit test,
-- noise.misfit) or, where they do not, by more than TIGHT percent is noise (the means of
-- latencies with rare 3-30x slow samples: there the whole range predicts better). Measured
-- against the noise, timings of microseconds count too: an interval whose smallest sizes
-- are slower (the grid allocated below malloc's mmap threshold) and whose upper sizes grow
-- had it refused at 2%, and the whole range's constant was 23-53% low in four studies.
local noise = tardy.require("noise")

local UPPER = 4      -- the largest values of the parameter fitted
local LEAST = 7      -- values of the parameter it needs: the upper ones and three below
local TIGHT = 2      -- percent: without repetitions, the most the law may miss the upper
                     -- points by (fit SMAPE)

local function fit(points)
  local names = tardy.varying(points)
  if #names ~= 1 then return nil, "one parameter only, " .. #names .. " vary" end
  local key = names[1]
  local seen, values = {}, {}
  for _, pt in ipairs(points) do
    local x = pt.x[key]
    if not seen[x] then seen[x] = true; values[#values + 1] = x end
  end
  if #values < LEAST then
    return nil, string.format("needs %d values of %s, has %d", LEAST, key, #values)
  end
  table.sort(values)
  local cut, upper = values[#values - UPPER + 1], {}
  for _, pt in ipairs(points) do
    if pt.x[key] >= cut then upper[#upper + 1] = pt end
  end
  local model, why = tardy.pmnf(upper, {negative = true})
  if not model then return nil, why end
  local miss = noise.misfit(model.predict, upper)
  if miss and not (miss <= noise.MISFIT) then
    return nil, string.format("the upper %d values of %s follow no law within %g times their "
                              .. "noise", UPPER, key, noise.MISFIT)
  elseif not miss and not (model.fit_error <= TIGHT) then
    return nil, string.format("the upper %d values of %s follow no law within %d%%", UPPER,
                              key, TIGHT)
  end
  return model
end

tardy.family("pmnf_upper", {params = 1, min_points = LEAST, fit = fit})
