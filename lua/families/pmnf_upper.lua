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
-- Where the runs repeat and jump below the upper regime (its law misses the lower points
-- beyond their noise, and the step into the regime is steeper than any within it), the
-- lower points are another regime: the law claims the upper points only (model.claims: the
-- lack-of-fit test judges it there), and five values suffice. Bucketsort's MPI_Alltoallv at
-- one rank is 20x faster at the smallest of five sizes; the whole range's PMNF met it with a
-- constant that nearly cancels its term and was 21-26% low in seven studies. Without the
-- step, a smooth law counts as two regimes: 1 + 0.3 log2(p)^2 from p = 1..16 at 3% noise,
-- its upper law misses p = 1, and took over from PMNF with twice its error.
local noise = tardy.require("noise")

local UPPER = 4      -- the largest values of the parameter fitted
local LEAST = 7      -- values of the parameter it needs: the upper ones and three below
                     -- (below a jump, one below)
local TIGHT = 2      -- percent: without repetitions, the most the law may miss the upper
                     -- points by (fit SMAPE)

-- Whether the runs jump where the upper regime begins (at cut): the slope in log-log from
-- the largest lower point to the smallest upper one is more than JUMP times the steepest
-- between upper points, and the upper values only rise or only fall.
local JUMP = 2
local function jumps(points, key, cut)
  local s = {}
  for i, pt in ipairs(points) do s[i] = pt end
  table.sort(s, function(a, b) return a.x[key] < b.x[key] end)
  local up, down, steepest, at = true, true, 0, nil
  for i = 2, #s do
    local a, b = s[i - 1], s[i]
    if not (a.y > 0 and b.y > 0) then return false end
    local slope = math.log(b.y / a.y) / math.log(b.x[key] / a.x[key])
    if b.x[key] == cut then at = slope
    elseif a.x[key] >= cut then
      up, down = up and slope > 0, down and slope < 0
      steepest = math.max(steepest, math.abs(slope))
    end
  end
  return at ~= nil and (up or down) and math.abs(at) > JUMP * steepest
end

-- Where the law holds: from the cut down, each value of key whose runs it follows (within
-- MISFIT times their noise where they repeat, else TIGHT percent) down to the first it misses.
-- Returns model.outside (x -> the reason where the law does not hold at x, else nil), or nil
-- where it follows every value. The barrier's law from p = 64..512 gave at p = 4, below the
-- node where the runs change law, twice their latency, inside an interval 5% wide.
local function regime(law, points, values, key, pooled)
  local from = values[#values - UPPER + 1]
  for i = #values - UPPER, 1, -1 do
    local at = {}
    for _, pt in ipairs(points) do if pt.x[key] == values[i] then at[#at + 1] = pt end end
    local miss = noise.misfit(law, at, pooled) -- nil without repetitions
    local follows
    if miss then follows = miss <= noise.MISFIT
    else
      local ok, v = pcall(law, at[1].x)
      follows = ok and type(v) == "number" and math.abs(v - at[1].y) <= TIGHT / 100 * math.abs(at[1].y)
    end
    if not follows then break end
    from = values[i]
  end
  if from == values[1] then return nil end
  local why = string.format("the runs follow the model from %s=%g on, not below", key, from)
  return function(x)
    if type(x[key]) == "number" and x[key] < from then return why end
  end
end

local function fit(points, opts)
  local names = tardy.varying(points)
  if #names ~= 1 then return nil, "one parameter only, " .. #names .. " vary" end
  local key = names[1]
  local seen, values = {}, {}
  for _, pt in ipairs(points) do
    local x = pt.x[key]
    if not seen[x] then seen[x] = true; values[#values + 1] = x end
  end
  local pooled = noise.pooled_noise(points)
  if #values < (pooled > 0 and UPPER + 1 or LEAST) then
    return nil, string.format("needs %d values of %s (%d where the runs repeat and jump), has %d",
                              LEAST, key, UPPER + 1, #values)
  end
  table.sort(values)
  local cut, upper, lower = values[#values - UPPER + 1], {}, {}
  for _, pt in ipairs(points) do
    if pt.x[key] >= cut then upper[#upper + 1] = pt else lower[#lower + 1] = pt end
  end
  -- the step is tested first: fewer values than LEAST need it, and every series of five or
  -- six sizes would pay for a PMNF search (10 runs x 200 intervals: 7% more instructions
  -- than before this family took five sizes; tested first, 2%)
  local jump = jumps(points, key, cut)
  local function unjumped()
    return nil, string.format("needs %d values of %s, has %d: the runs do not jump below the "
                              .. "upper %d", LEAST, key, #values, UPPER)
  end
  if #values < LEAST and not jump then return unjumped() end
  local model, why = tardy.pmnf(upper, {negative = true, refit = opts and opts.refit})
  if not model then return nil, why end
  local off = jump and noise.misfit(model.predict, lower, pooled)
  if off and off > noise.MISFIT then
    model.claims = upper
  elseif #values < LEAST then
    return unjumped()
  end
  model.outside = regime(model.predict, points, values, key, pooled)
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

tardy.family("pmnf_upper", {params = 1, min_points = UPPER + 1, fit = fit})
