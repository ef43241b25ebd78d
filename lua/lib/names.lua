-- What the rows of a profile are called in predictions, and which per-rank metrics describe
-- how the run was measured rather than the program (tardy.require("names")).

-- What the per-rank metrics of the profile are called in predictions, and their units.
local RANK_NAMES = {
  mpi = "MPI time per rank", wall = "wall time per rank",
  partners = "point-to-point partners per rank", p2p_messages = "point-to-point messages per rank",
  p2p_sent_bytes = "point-to-point bytes sent per rank",
  p2p_recv_bytes = "point-to-point bytes received per rank",
  max_bytes_one_partner = "bytes exchanged with one partner per rank",
  mpi_memory_high_water = "MPI library memory per rank, peak",
  mpi_memory_live = "MPI library memory per rank at finalize",
  wait_time = "time waited in wait states per rank",
}
-- Per-rank metrics of how the run was measured and placed, not of what the program did
-- (the clocks' offsets, the CPUs of the hosts, tardy's own bookkeeping): not predicted.
local SETTING = {clock_violations = true, clock_offset = true, clock_uncertainty = true,
  clock_drift = true, clock_resyncs = true, host_ranks = true, host_cpus = true,
  ranks_per_cpu = true, mpi_memory_untracked_allocs = true}
local function setting(name)
  return SETTING[name] or name:find("^waits_unmeasured_") ~= nil
end
local UNITS = {mpi = " (s)", wall = " (s)", partners = "", p2p_messages = "",
  p2p_sent_bytes = " (bytes)", p2p_recv_bytes = " (bytes)", max_bytes_one_partner = " (bytes)",
  mpi_memory_high_water = " (bytes)", mpi_memory_live = " (bytes)", wait_time = " (s)"}

-- The name in predictions of the maximum over ranks of a per-rank metric not in RANK_NAMES:
-- a counter's total ("counter:EVENT") as "EVENT per rank, max", as on call paths; a region
-- and metric of another tool's Extra-P file ("solve/time") as the file names them (its values
-- are that tool's, not a maximum tardy took); else "NAME, max per rank".
local function rank_max(name)
  local event = name:match("^counter:(.+)")
  if event then return event .. " per rank, max" end
  return name:find("/", 1, true) and name or name .. ", max per rank"
end

-- "MPI_Send@main jacobi.c:88;solve ..." → "MPI_Send@main jacobi.c:88"
local function short(key)
  return (key:gsub("^[%w_]+:", ""):gsub(";[^>]*", ""))
end

-- The name of a row of another kind in predictions: "wait late_sender at SITE", "cause of
-- late_sender at SITE: FROM -> TO" (the late ranks' interval that caused it; "in SITE" an MPI
-- call; docs/profile-schema.md, wait_causes), else "kind key". A cause's key holds a newline
-- and a tab, which would break the table's line.
local function label(kind, m)
  if kind == "wait" and m.b then return "wait " .. m.a .. " at " .. short(m.b) end
  local pattern, site = m.a:match("^(.-)\n(.*)$")
  if kind == "cause" and m.b and pattern then
    local from, to = m.b:match("^(.-)\t(.*)$")
    local region = from and short(from) .. " -> " .. short(to) or
      m.b == "?" and "no hotspot region" or m.b:find("^%?") and "a region no rank could name" or
      "in " .. short(m.b)
    return string.format("cause of %s at %s: %s", pattern, short(site), region)
  end
  return kind .. " " .. short(m.key):gsub("[\n\t]", " ")
end

return {RANK_NAMES = RANK_NAMES, setting = setting, UNITS = UNITS, short = short, label = label,
  rank_max = rank_max}
