#!/usr/bin/env bash
# Benchmark: tools/call echo over keep-alive HTTP, Switchboard against the MCP reference server
# (@modelcontextprotocol/server-everything, streamableHttp transport, its echo tool), measured side
# by side in one run with wrk, at 1 and 16 connections. Each measurement gets a fresh server
# process and session and a warm-up. Prints calls/s, p50 and p99, and the ratios.
#
#   tests/bench/run-bench.sh [seconds-per-measurement]   (default 10)
#   BASELINE=/path/to/older/switchboard tests/bench/run-bench.sh 10
#
# With BASELINE, an older build of switchboard is measured in the same run too (before/after a
# change, against the same reference figures).
#
# Switchboard runs as a user runs it: release build, headless, bearer token required, history on.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
duration=${1:-10}
node=$root/tests/node/node22
reference=$root/tests/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js
version=2025-06-18

work=$(mktemp -d)
server_pid=
cleanup() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

source "$here/bench-lib.sh"
build_release

start_switchboard() { start_binary "$switchboard"; }
start_baseline() { start_binary "$BASELINE"; }

start_reference() {
    local port; port=$(free_port)
    export TOKEN=
    PORT=$port "$node" --import "$here/loopback-only.mjs" "$reference" streamableHttp >"$work/reference-$port.log" 2>&1 &
    server_pid=$!
    URL=http://127.0.0.1:$port/mcp
}

servers=(reference switchboard)
if [[ -n ${BASELINE:-} ]]; then
    [[ -x $BASELINE ]] || { echo "BASELINE=$BASELINE is not an executable" >&2; exit 2; }
    servers=(reference baseline switchboard)
fi
declare -A result
for connections in 1 16; do
    for server in "${servers[@]}"; do
        "start_$server"
        open_session
        result[$server,$connections]=$(measure "$server" "$connections")
        stop_server
    done
done

echo
echo "tools/call echo over keep-alive HTTP, ${duration}s per measurement, wrk -t1, $(nproc) cores"
printf '%-12s %5s %12s %10s %10s\n' server conns calls/s p50_us p99_us
for connections in 1 16; do
    for server in "${servers[@]}"; do
        read -r rate p50 p99 <<<"${result[$server,$connections]}"
        printf '%-12s %5s %12.0f %10s %10s\n' "$server" "$connections" "$rate" "$p50" "$p99"
    done
done
echo
status=0
if [[ -n ${BASELINE:-} ]]; then
    for connections in 1 16; do
        read -r ref_rate _ ref_p99 <<<"${result[reference,$connections]}"
        read -r base_rate _ base_p99 <<<"${result[baseline,$connections]}"
        read -r sb_rate _ sb_p99 <<<"${result[switchboard,$connections]}"
        echo "$connections connection(s): baseline/reference calls/s = $(awk -v a="$base_rate" -v b="$ref_rate" 'BEGIN {printf "%.1f", a / b}')x, p99 = $(awk -v a="$base_p99" -v b="$ref_p99" 'BEGIN {printf "%.3f", a / b}')x; switchboard/baseline calls/s = $(awk -v a="$sb_rate" -v b="$base_rate" 'BEGIN {printf "%.2f", a / b}')x"
    done
fi
for connections in 1 16; do
    read -r ref_rate _ ref_p99 <<<"${result[reference,$connections]}"
    read -r sb_rate _ sb_p99 <<<"${result[switchboard,$connections]}"
    throughput=$(awk -v a="$sb_rate" -v b="$ref_rate" 'BEGIN {printf "%.1f", a / b}')
    tail=$(awk -v a="$sb_p99" -v b="$ref_p99" 'BEGIN {printf "%.3f", a / b}')
    verdict=met
    awk -v t="$throughput" -v p="$tail" 'BEGIN {exit !(t >= 10 && p <= 0.1)}' || { verdict="NOT met"; status=1; }
    echo "$connections connection(s): switchboard/reference calls/s = ${throughput}x, p99 = ${tail}x (target >= 10x and <= 0.1x: $verdict)"
done
exit $status
