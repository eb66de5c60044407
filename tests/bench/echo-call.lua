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
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"benchmark"}}}'

done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT calls_per_s=%.1f p50_us=%d p99_us=%d requests=%d errors=%d\n",
    summary.requests / seconds, latency:percentile(50), latency:percentile(99), summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
end
