#!/usr/bin/env bash
# Benchmark for the execution core: tools/call echo on an idle Switchboard, and on the same build
# while 16 calls of a 5-second blocking tool (debug.block, on the executor's worker pool) run all
# the time on other connections, measured side by side in one run with wrk at 1 and 4 connections.
# Then bench_executor prints how long cancellation takes to reach blocking work and how closely a
# deadline ends a call that ignores cancellation.
#
#   tests/bench/run-executor-bench.sh [seconds-per-measurement]   (default 10)
#
# Target (issue 9): echo's p99 while the blocking calls run is within 2x of the idle server's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
duration=${1:-10}
version=2025-06-18

work=$(mktemp -d)
server_pid=
blockers=()
stop_blockers() {
    for pid in "${blockers[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${blockers[@]}"; do wait "$pid" 2>/dev/null || true; done
    blockers=()
}
cleanup() {
    stop_blockers
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

source "$here/bench-lib.sh"
build_release

# 16 loops in one Python process (no process started per call, which would load the client's
# core), each on its own keep-alive connection with a request id of its own, each calling
# debug.block for 5 s over and over.
start_blockers() {
    python3 - "$URL" "$TOKEN" "$SESSION" "$version" <<'PY' &
import http.client, sys, threading, urllib.parse
url, token, session, version = sys.argv[1:5]
target = urllib.parse.urlsplit(url)
def loop(i):
    body = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"debug.block","arguments":{"seconds":5}}}' % (1000 + i)
    headers = {"Authorization": "Bearer " + token, "Mcp-Session-Id": session, "MCP-Protocol-Version": version,
               "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    connection = http.client.HTTPConnection(target.hostname, target.port)
    while True:
        connection.request("POST", target.path, body, headers)
        connection.getresponse().read()
threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(16)]
for thread in threads:
    thread.start()
threading.Event().wait()
PY
    blockers+=($!)
    # All 16 are running on workers: the executor starts a worker thread ("switchboard-tool", as
    # /proc shows the first 15 bytes of its name) for each call that runs at once.
    local attempt workers=0
    for attempt in $(seq 1 300); do
        workers=$(grep -lx 'switchboard-too' /proc/"$server_pid"/task/*/comm 2>/dev/null | wc -l)
        [[ $workers -ge 16 ]] && break
        sleep 0.1
    done
    [[ $workers -ge 16 ]] || { echo "only $workers of 16 blocking calls started" >&2; exit 1; }
    local ended; ended=$(grep -c 'debug.block' "$SERVER_LOG" || true)
    [[ $ended -eq 0 ]] || { echo "a blocking call ended early: $(grep debug.block "$SERVER_LOG" | head -3)" >&2; exit 1; }
}

declare -A result
for connections in 1 4; do
    start_binary "$switchboard" --debug-tools
    open_session
    result[idle,$connections]=$(measure idle "$connections")
    start_blockers
    result[blocked,$connections]=$(measure blocked "$connections")
    stop_blockers
    stop_server
done

echo
echo "tools/call echo over keep-alive HTTP, ${duration}s per measurement, wrk -t1, $(nproc) cores"
echo "blocked: 16 calls of debug.block (5 s, blocking, on the executor's pool) running throughout"
printf '%-10s %5s %12s %10s %10s\n' server conns calls/s p50_us p99_us
for connections in 1 4; do
    for state in idle blocked; do
        read -r rate p50 p99 <<<"${result[$state,$connections]}"
        printf '%-10s %5s %12.0f %10s %10s\n' "$state" "$connections" "$rate" "$p50" "$p99"
    done
done
echo
status=0
for connections in 1 4; do
    read -r _ _ idle_p99 <<<"${result[idle,$connections]}"
    read -r _ _ blocked_p99 <<<"${result[blocked,$connections]}"
    ratio=$(awk -v a="$blocked_p99" -v b="$idle_p99" 'BEGIN {printf "%.2f", a / b}')
    verdict=met
    awk -v r="$ratio" 'BEGIN {exit !(r <= 2)}' || { verdict="NOT met"; status=1; }
    echo "$connections connection(s): p99 blocked/idle = ${ratio}x (target <= 2x: $verdict)"
done

echo
# bench_executor lives with the tests (the release build has none); the ci build is optimised.
cmake --preset ci -S "$root" >/dev/null
cmake --build "$root/build/ci" --target bench_executor >/dev/null
"$root/build/ci/tests/bench_executor" || status=1
exit $status
