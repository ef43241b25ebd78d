tardy.policy("syntax", function(ctx)
  return {
end)
