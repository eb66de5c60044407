# Shared by the benchmark scripts: starting a server, opening an MCP session on it, and measuring
# tools/call echo with wrk. Expects `here` (this folder), `root` (the repository), `work` (a scratch
# directory), `duration`
# (seconds per measurement), `version` (the MCP protocol version) and `server_pid` in the sourcing
# script.

# Installs what the benchmarks need and builds the release binary (unless REBUILD=0 and it exists, or
# SWITCHBOARD names a binary); sets `switchboard` to it.
build_release() {
    "$root/scripts/install-deps.sh" --test
    # SWITCHBOARD=/path/to/switchboard measures that binary instead (e.g. a build of one's own).
    if [[ -n ${SWITCHBOARD:-} ]]; then
        switchboard=$SWITCHBOARD
        return
    fi
    if [[ ! -x $root/build/release/app/switchboard ]] || [[ ${REBUILD:-1} == 1 ]]; then
        cmake --preset release -S "$root" >/dev/null
        cmake --build "$root/build/release" --parallel >/dev/null
    fi
    switchboard=$root/build/release/app/switchboard
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_binary() {
    local port; port=$(free_port)
    export TOKEN=sb_bench_$(head -c 24 /dev/urandom | base64 | tr -d "/+=")
    SERVER_LOG=$work/switchboard-$port.log
    SWITCHBOARD_TOKEN=$TOKEN "$1" "${@:2}" --headless --port "$port" --state-dir "$work/state-$port" \
        --config "${CONFIG:-$work/none.yaml}" >"$SERVER_LOG" 2>&1 &
    server_pid=$!
    URL=http://127.0.0.1:$port/mcp
}

stop_server() { kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; server_pid=; }

# initialize + notifications/initialized; exports SESSION. Checks echo answers correctly.
open_session() {
    local auth=()
    [[ -n $TOKEN ]] && auth=(-H "Authorization: Bearer $TOKEN")
    for _ in $(seq 1 100); do curl -s -o /dev/null "$URL" -X POST "${auth[@]}" && break; sleep 0.1; done
    SESSION=$(curl -s -D - -o /dev/null -X POST "$URL" "${auth[@]}" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'$version'","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
        | tr -d '\r' | awk 'tolower($1)=="mcp-session-id:" {print $2}')
    [[ -n $SESSION ]] || { echo "no session from $URL"; exit 1; }
    export SESSION VERSION=$version
    local headers=("${auth[@]}" -H "Mcp-Session-Id: $SESSION" -H "MCP-Protocol-Version: $version"
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
    curl -s -o /dev/null -X POST "$URL" "${headers[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    local answer; answer=$(curl -s -X POST "$URL" "${headers[@]}" \
        -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"${TOOL:-echo}"'","arguments":{"message":"benchmark"}}}')
    [[ $answer == *benchmark* ]] || { echo "echo did not answer as expected: $answer"; exit 1; }
}

measure() { # <name> <connections> → "calls_per_s p50_us p99_us"
    local name=$1 connections=$2 line
    wrk -t1 -c"$connections" -d2s -s "$here/echo-call.lua" "$URL" >/dev/null # warm-up
    line=$(wrk -t1 -c"$connections" -d"${duration}s" --timeout 10s -s "$here/echo-call.lua" "$URL" | grep '^RESULT')
    local errors; errors=$(sed -E 's/.*errors=([0-9]+).*/\1/' <<<"$line")
    if [[ $errors != 0 ]]; then echo "$name at $connections connections had $errors errors: $line" >&2; exit 1; fi
    sed -E 's/.*calls_per_s=([0-9.]+) p50_us=([0-9]+) p99_us=([0-9]+).*/\1 \2 \3/' <<<"$line"
}
