#!/usr/bin/env bash
# Starts the console as the README's screenshots show it: on a virtual 1366x768 display (Xvfb) with
# the demo configuration (config.yaml) and a burst of traffic from two clients (traffic.mjs), then
# leaves an approval waiting. Take a shot with `shot NAME` (this script prints how); stop with
# Ctrl+C. Needs a build (BUILD_DIR, default build/ci) and tests/node installed
# (scripts/install-deps.sh --test); Xvfb, xwd and ImageMagick: apt-get install xvfb x11-apps imagemagick.
#   docs/screenshots/take.sh [BUILD_DIR] [extra switchboard options, e.g. a larger font: -- -platform xcb]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/ci}
display=${SCREENSHOT_DISPLAY:-:77}
port=${SCREENSHOT_PORT:-18091}
export SWITCHBOARD_TOKEN=${SWITCHBOARD_TOKEN:-demo-token-0123456789abcdef0123456789abcdef}

work=$(mktemp -d /tmp/switchboard-shots.XXXXXX)
export SCREENSHOT_DIR=$work
mkdir -p "$work/notes" "$work/state" "$work/node" "$work/home"
cp "$here/traffic.mjs" "$work/node/"
ln -s "$root/tests/node/node_modules" "$work/node/node_modules"
node=$root/tests/node/node22

Xvfb "$display" -screen 0 1366x768x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
cleanup() { kill "$console" "$xvfb" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
sleep 1
# A HOME of its own: no saved layout, so the window starts as a new user's does.
DISPLAY=$display HOME=$work/home XDG_CONFIG_HOME=$work/home/.config \
    "$build/app/switchboard" --port "$port" --state-dir "$work/state" --config "$here/config.yaml" \
    --debug-tools >"$work/console.log" 2>&1 &
console=$!
url=http://127.0.0.1:$port/mcp
for _ in $(seq 50); do grep -q listening "$work/console.log" 2>/dev/null && break; sleep 0.2; done
grep listening "$work/console.log"
(cd "$work/node" && "$node" traffic.mjs "$url" claude-code mix && "$node" traffic.mjs "$url" agent-runner mix) || true
(cd "$work/node" && "$node" traffic.mjs "$url" claude-code ask >/dev/null 2>&1 &)
cat <<INFO
The console runs on DISPLAY=$display, an approval is waiting. Drive it with xdotool, e.g.
  DISPLAY=$display xdotool key ctrl+5          (the Permissions dock)
and take a shot with
  xwd -root -display $display | convert xwd:- $here/NAME.png
More traffic: (cd $work/node && $node traffic.mjs $url NAME mix|ask)
Ctrl+C stops the console and the display.
INFO
wait "$console"
