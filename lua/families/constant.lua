-- No change: the median of every run, for a series whose runs do not change with their
-- parameters beyond the noise between repetitions (tardy.trend: rank tests at 5% over the
-- scales and along each parameter). Times of microseconds, such as an MPI_Init or a small
-- Sendrecv at one rank, wander by 10-30% from run to run, and a law fitted to that noise
-- carries it to the target (jacobi at nine sizes: MPI_Init's time 10% high from a line through
-- the noise, 4% off as the median). The family prevails: where it offers a model the default
-- policy takes it, since the runs tell no law from none. It needs two runs or more at every
-- scale, and offers nothing where any test finds a change.

local function median(v)
  local s = {}
  for i, x in ipairs(v) do s[i] = x end
  table.sort(s)
  local n = #s
  if n % 2 == 1 then return s[(n + 1) // 2] end
  return (s[n // 2] + s[n // 2 + 1]) / 2
end

-- every value of the points but those of point skip (their repetitions, or y)
local function values(points, skip)
  local out = {}
  for i, pt in ipairs(points) do
    if i ~= skip then
      for _, v in ipairs(pt.reps or {pt.y}) do out[#out + 1] = v end
    end
  end
  return out
end

local function fit(points)
  local t, why = tardy.trend(points)
  if not t then return nil, why end
  if t.trend then return nil, "the runs change beyond their noise: " .. t.test end
  local c = median(values(points))
  -- leave-one-out over the scales: each scale's value from the median of the others
  local actual, fitted, loo = {}, {}, {}
  for i, pt in ipairs(points) do
    actual[i], fitted[i], loo[i] = pt.y, c, median(values(points, i))
  end
  return {formula = string.format("%.6g", c), fit_error = tardy.smape(actual, fitted),
          uncertainty = tardy.smape(actual, loo),
          predict = function() return c end}
end

tardy.family("constant", {min_points = 3, prevails = true, fit = fit})
