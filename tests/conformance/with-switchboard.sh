#!/usr/bin/env bash
# Starts the real switchboard binary headless on a free loopback port, runs a command against it,
# then stops it and checks it shut down cleanly.
#
#   with-switchboard.sh <switchboard-binary> [--no-auth] [--config FILE] -- <command> [args...]
#
# The command sees SWITCHBOARD_URL (http://127.0.0.1:PORT/mcp) and, unless --no-auth,
# SWITCHBOARD_TOKEN. Its exit status is the script's, unless the server misbehaved.
# With --config, Switchboard reads a copy of FILE (config.yaml in its temporary folder, which is
# also where command tools run unless they name a cwd), and ${CONFIG_SOURCE_DIR} in it names FILE's
# own folder; without it, no configuration at all.
set -euo pipefail

binary=$1; shift
auth=yes
config=
while [[ ${1:-} == --no-auth || ${1:-} == --config ]]; do
    if [[ $1 == --no-auth ]]; then auth=no; shift; else config=$2; shift 2; fi
done
[[ ${1:-} == -- ]] && shift

state=$(mktemp -d)
log=$state/server.log
cleanup() { [[ -n ${server_pid:-} ]] && kill "$server_pid" 2>/dev/null || true; rm -rf "$state"; }
trap cleanup EXIT

args=(--headless --port 0 --state-dir "$state/state" --config "$state/none.yaml")
if [[ -n $config ]]; then
    CONFIG_SOURCE_DIR=$(cd "$(dirname "$config")" && pwd)
    export CONFIG_SOURCE_DIR
    cp "$config" "$state/config.yaml"
    args=(--headless --port 0 --state-dir "$state/state" --config "$state/config.yaml")
fi
if [[ $auth == no ]]; then
    args+=(--no-auth)
    unset SWITCHBOARD_TOKEN
else
    SWITCHBOARD_TOKEN="sb_test_$(head -c 24 /dev/urandom | base64 | tr -d '/+=' | head -c 32)"
    export SWITCHBOARD_TOKEN
fi

"$binary" "${args[@]}" >"$log" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do
    if line=$(head -n 1 "$log" 2>/dev/null) && [[ $line == "listening on "* ]]; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then echo "switchboard exited early:"; cat "$log"; exit 1; fi
    sleep 0.1
done
line=$(head -n 1 "$log")
if [[ $line != "listening on http://127.0.0.1:"*"/mcp" ]]; then
    echo "unexpected first line from switchboard: $line"; cat "$log"; exit 1
fi
export SWITCHBOARD_URL=${line#listening on }
echo "switchboard is $SWITCHBOARD_URL"

status=0
"$@" || status=$?

if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "switchboard died while the client ran:"; cat "$log"; exit 1
fi
kill -TERM "$server_pid"
server_status=0
wait "$server_pid" || server_status=$?
server_pid=
echo "--- switchboard output ---"; cat "$log"
if [[ $server_status -ne 0 ]]; then echo "switchboard exited with status $server_status on SIGTERM"; exit 1; fi
exit $status
