-- tardy.on_init hooks for tests/run.py, one behaviour per TARDY_PARAMS mode=...; alg= names
-- the MPI's allreduce algorithm selector. The hook prints what it saw on stderr ("tardy lua:").
tardy.on_init(function(ctx) -- @site hook
  local mode, alg = ctx.params.mode, ctx.params.alg
  local n = 0
  for _ in pairs(ctx.cvars) do n = n + 1 end
  print(string.format("ctx p=%d params.p=%d program=%s runs=%d cvars=%d %s=%s", ctx.p,
                      ctx.params.p, ctx.program:match("[^/]*$"), #ctx.runs, n, alg,
                      tostring(ctx.cvars[alg])))
  if mode == "set" then
    return {[alg] = "recursive_doubling"}
  elseif mode == "number" then
    return {[alg] = 4}
  elseif mode == "none" then
    return nil
  elseif mode == "store" then -- 3 while the store is empty, then 4; the runs' values printed
    for _, run in ipairs(ctx.runs) do print("stored " .. tostring(run.cvars[alg])) end
    return {[alg] = #ctx.runs == 0 and 3 or 4}
  elseif mode == "runtime_error" then
    local t = nil
    return t.field -- @site runtime_error
  elseif mode == "endless" then
    while true do pcall(function() end) end -- @site endless
  elseif mode == "wrong_type" then
    return "recursive_doubling"
  elseif mode == "bad_value_type" then
    return {[alg] = {3}}
  elseif mode == "unknown" then
    return {NO_SUCH_CONTROL_VARIABLE = 1, [alg] = 4}
  elseif mode == "bad_value" then
    return {[alg] = "frobnicate"}
  end
  error("no mode " .. tostring(mode))
end)
