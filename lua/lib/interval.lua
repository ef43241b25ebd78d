-- The 80% prediction interval of a model at a target: its cross-validated errors, the
-- noise between repetitions, the spread of the family refitted on noise draws and the
-- near-best models (tardy.require("interval")).

local finite = tardy.require("series").finite
local median_noise = tardy.require("noise").median_noise

local COVERAGE = 80     -- nominal coverage of the prediction intervals, percent
local Z = 1.2816       -- the standard normal quantile of 90%: a central 80% interval

-- Student's t quantile of 90% for df = 1..20 degrees of freedom; beyond, the first term of
-- its expansion around Z (within 0.001 at 21).
local T90 = {3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372, 1.363, 1.356,
             1.350, 1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325}
local function t90(df)
  return T90[math.max(df, 1)] or Z * (1 + (Z * Z + 1) / (4 * df))
end

-- How many steps beyond the data the target lies: per parameter the log distance from the
-- largest value to the target over the log distance between the two largest values (the
-- step the forward-chaining error was measured on); at least 1 (also inside the range).
local function steps(info, target)
  local most = 1
  for _, k in ipairs(info.names) do
    local v, hi, prev = target[k], info.hi[k], info.prev[k]
    if type(v) == "number" and v > hi and prev > 0 and hi > prev then
      most = math.max(most, math.log(v / hi) / math.log(hi / prev))
    end
  end
  return most
end

-- How the prediction at target moves when the runs move by their noise: the family refitted
-- (its choice of form included) on DRAWS copies of the points, each scale's median multiplied
-- by exp(noise * a standard normal draw), the noise of the medians pooled over the scales
-- (median_noise(pts), given: noise of run times is a share of the value) or, without
-- repetitions, the model's leave-one-out error (a mean absolute error: x 1.25 for the
-- standard deviation, as in interval; without it one run per scale held 76-79% in
-- bench/predict_draws.py, with it 79-82%); the 10th and 90th percentile of the
-- predictions. Nil without noise or when fewer than half the copies give a positive value.
-- The form a family chooses from five noisy scales changes from one draw of the noise to the
-- next, and with it the value 4x beyond (p log p from p = 1..16 at 64: -18% to +19% over 20
-- draws); the forward-chaining error, measured once, does not see that.
local DRAWS = 40
local function spread(model, pts, target, noise)
  if noise == 0 then noise = finite(model.uncertainty) and 1.25 * model.uncertainty / 100 or 0 end
  if noise == 0 then return nil end -- runs without noise: every copy would be the same
  -- The refits do not depend on the target: made once per model and its points (a model is
  -- fitted once per series and asked at every target; refitting at each made a page's
  -- 24-point curve of a three-parameter file cost 24 predictions).
  local drawn = model.drawn
  if not drawn or drawn.pts ~= pts then
    math.randomseed(20261127) -- the same draws for every series and every run of tardy
    drawn = {pts = pts}
    for _ = 1, DRAWS do
      local copy = {}
      for i, pt in ipairs(pts) do
        local g = math.sqrt(-2 * math.log(1 - math.random())) *
          math.cos(2 * math.pi * math.random())
        local f, reps = math.exp(noise * g), nil
        if pt.reps then -- moved with their median
          reps = {}
          for j, r in ipairs(pt.reps) do reps[j] = r * f end
        end
        copy[i] = {x = pt.x, y = pt.y * f, reps = reps}
      end
      local ok, m = pcall(model.refit, copy)
      if ok and type(m) == "table" and type(m.predict) == "function" then
        drawn[#drawn + 1] = m.predict
      end
    end
    model.drawn = drawn
  end
  local logs = {}
  for _, predict in ipairs(drawn) do
    local okp, a = pcall(predict, target)
    if okp and finite(a) and a > 0 then logs[#logs + 1] = math.log(a) end
  end
  if #logs < DRAWS / 2 then return nil end
  table.sort(logs)
  local function at(q) return math.exp(logs[math.max(1, math.floor(q * #logs + 0.5))]) end
  return at(0.1), at(0.9)
end

-- The prediction interval of model at target (of the median run there), with nominal
-- coverage COVERAGE: in log space, the value ± t · sigma, t Student's quantile for the scales
-- less two (the coefficients of most models): sigma is measured on a few scales, and with
-- the normal quantile the interval held 73% of 1,155 values of fresh real studies (jacobi,
-- bucketsort, halo3d), 78% with t. The leave-one-out error is the floor
-- (repetition noise and misfit inside the range), and at least the noise of a scale's median
-- measured by the repetitions (a family that fits few points closely, as pmnf_upper does its
-- four, can have a leave-one-out error below it: jacobi's Sendrecv time at nine sizes got an
-- interval 0.7% wide and missed by 6.9%). The forward-chaining error measured one step beyond
-- the data already holds that noise, so only its excess over the floor is the error of
-- extrapolating, which grows with the steps to the target: sigma² = loo² + (ext² − loo²) ·
-- steps² (adding ext and loo in quadrature counted the noise twice: intervals of noisy series
-- twice as wide as their errors, and then refused as "models disagree"); the errors are mean
-- absolute ones, x 1.25 a standard deviation. Stretched to hold the spread of the refitted
-- family over noise draws (unless drawn is false: the small parts of a sum) and the values of
-- the near-best models (of every family, and the near-best hypotheses of a family that offers
-- model.range). Returns low, high, and the low and high the normal quantile gives. No factor
-- fitted on the corpus widens it (one of 1.3 did before the noise draws).
local function interval(model, pts, target, v, drawn)
  local noise = median_noise(pts)
  local loo = math.max(finite(model.uncertainty) and model.uncertainty / 100 or 0, noise)
  local ext = model.extrap or loo
  local excess = math.max(ext ^ 2 - loo ^ 2, 0) * steps(model.info, target) ^ 2
  local sigma = 1.25 * math.sqrt(loo ^ 2 + excess)
  local others = {}
  if drawn and model.refit then
    local l, h = spread(model, pts, target, noise)
    if l then others[#others + 1] = {l, h} end
  end
  for _, m in ipairs(model.near) do
    local ok, a = pcall(m.predict, target)
    if ok and finite(a) then others[#others + 1] = {a, a} end
    if type(m.range) == "function" then
      local okr, l, h = pcall(m.range, target)
      if okr and finite(l) and finite(h) then others[#others + 1] = {l, h} end
    end
  end
  local function band(q)
    local lo, hi
    if v > 0 then
      lo, hi = v * math.exp(-q * sigma), v * math.exp(q * sigma)
    else
      local w = math.abs(v) * (math.exp(q * sigma) - 1)
      lo, hi = v - w, v + w
    end
    for _, o in ipairs(others) do lo, hi = math.min(lo, o[1]), math.max(hi, o[2]) end
    return lo, hi
  end
  local lo, hi = band(t90(#pts - 2))
  return lo, hi, band(Z)
end

return {COVERAGE = COVERAGE, interval = interval}
