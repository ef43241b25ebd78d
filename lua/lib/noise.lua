-- The noise between repetitions: how far a scale's median may lie from the law by chance, the
-- yardstick of the interval and of whether a model misses the runs
-- (tardy.require("noise")).

local finite = tardy.require("series").finite
local abs, log, sqrt, pcall = math.abs, math.log, math.sqrt, pcall -- used at every point

-- the lack-of-fit test's bound: a model that misses the runs by more than this many times
-- their noise does not follow them
local MISFIT = 3

-- The noise of a scale's median, from its repetitions: their spread as the median absolute
-- deviation of their logs from the median's (robust: with one run of three ten times slower
-- the mean deviation made the noise 55%), scaled to a standard deviation for normal
-- noise with the factor for that many runs (MAD_SCALE, from simulation; 1.4826 for many), and
-- the median's standard deviation from it (x 1.2533 over the square root of their number); nil
-- without repetitions.
local MAD_SCALE = {[2] = 1.771, [3] = 2.208, [4] = 2.018, [5] = 1.805, [6] = 1.768,
                   [7] = 1.687, [8] = 1.672, [9] = 1.632, [10] = 1.625}
local function measure(pt)
  local r = pt.reps
  if not (r and #r >= 2 and pt.y > 0) then return nil end
  local d = {}
  for i, v in ipairs(r) do d[i] = v > 0 and abs(log(v / pt.y)) or 0 end
  table.sort(d)
  local n = #d
  local mad = n % 2 == 1 and d[(n + 1) // 2] or (d[n // 2] + d[n // 2 + 1]) / 2
  local sd = mad * (MAD_SCALE[n] or 1.4826 * n / (n - 1))
  return 1.2533 * sd / sqrt(n)
end

-- measure(pt) kept per point (false: none), weakly: a series' points are asked again and
-- again (the lack-of-fit test, pmnf_upper's fit and refits, every interval), each time a
-- sort and a log per repetition; the noise draws' copies are fresh points and go with them.
local measured = setmetatable({}, {__mode = "k"})
local function rep_noise(pt)
  local s = measured[pt]
  if s == nil then
    s = measure(pt) or false
    measured[pt] = s
  end
  return s or nil
end

-- The noise of the medians: the median over the scales of rep_noise; 0 without repetitions.
local function median_noise(pts)
  local per = {}
  for _, pt in ipairs(pts) do per[#per + 1] = rep_noise(pt) end
  if #per == 0 then return 0 end
  table.sort(per)
  return per[(#per + 1) // 2]
end

-- The noise of the medians pooled over the scales as a variance is (the root mean square of
-- rep_noise): the scales whose few runs happen to agree do not make it small; 0 without
-- repetitions.
local function pooled_noise(pts)
  local sum, n = 0, 0
  for _, pt in ipairs(pts) do
    local s = rep_noise(pt)
    if s then sum, n = sum + s * s, n + 1 end
  end
  return n > 0 and sqrt(sum / n) or 0
end

-- How far predict (x -> value) misses the points, in units of the noise between their
-- repetitions: the root mean square over the scales of log(predict / median) over noise
-- (pooled_noise(pts) unless given); math.huge where it gives no positive value at a scale
-- whose runs are positive; nil without repetitions.
local function misfit(predict, pts, noise)
  noise = noise or pooled_noise(pts)
  if noise == 0 then return nil end
  local sum, n = 0, 0
  for _, pt in ipairs(pts) do
    if pt.y > 0 then
      local ok, v = pcall(predict, pt.x)
      if not (ok and finite(v) and v > 0) then return math.huge end
      local e = log(v / pt.y) / noise
      sum, n = sum + e * e, n + 1
    end
  end
  return n > 0 and sqrt(sum / n) or 0
end

return {rep_noise = rep_noise, median_noise = median_noise, pooled_noise = pooled_noise,
        misfit = misfit, MISFIT = MISFIT}
