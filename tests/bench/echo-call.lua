-- wrk script: tools/call echo on one MCP session over keep-alive connections.
-- SESSION, TOKEN and VERSION come from the environment (set by run-bench.sh).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Mcp-Session-Id"] = os.getenv("SESSION")
wrk.headers["MCP-Protocol-Version"] = os.getenv("VERSION")
local token = os.getenv("TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end
-- TOOL names the echo tool (run-adapter-bench.sh calls everything.echo through an adapter).
local tool = os.getenv("TOOL")
if not tool or tool == "" then
  tool = "echo"
end

-- Every request has its own JSON-RPC id: calls that overlap on one session (several connections, a
-- tool that answers later) must not reuse the id of one in flight.
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
counter = 0
failed = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. counter ..
    ',"method":"tools/call","params":{"name":"' .. tool .. '","arguments":{"message":"benchmark"}}}')
end
-- An answer that is not echo's (a JSON-RPC error, a tool error) counts as an error too.
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, "benchmark", 1, true) or string.find(body, '"isError":true', 1, true) then
    failed = failed + 1
  end
end

done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local wrong = 0
  for _, thread in ipairs(threads) do
    wrong = wrong + thread:get("failed")
  end
  io.write(string.format("RESULT calls_per_s=%.1f p50_us=%d p99_us=%d requests=%d errors=%d\n",
    summary.requests / seconds, latency:percentile(50), latency:percentile(99), summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
      + wrong))
end
