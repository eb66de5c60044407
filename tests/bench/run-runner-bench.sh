#!/usr/bin/env bash
# Benchmark: one `switchboard tool echo` call end to end (process start to result: the envelope on
# stdin, one JSON answer on stdout, the call in history, exit), against a minimal Node.js wrapper
# doing the same (tests/bench/echo-wrapper.mjs: read stdin, parse, write JSON), measured side by side
# in one run, alternating, after a warm-up of each.
#
#   tests/bench/run-runner-bench.sh [calls-per-side]   (default 200)
#
# Target (issue 12): the runner takes at most 0.5x the Node wrapper's time.
# The runner runs as a router runs it: release build, the default configuration, history on.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
calls=${1:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$here/bench-lib.sh"
build_release
echo 'port: 0' >"$work/config.yaml"

python3 - "$switchboard" "$here/echo-wrapper.mjs" "$work" "$calls" <<'PY'
import json, statistics, subprocess, sys, time
switchboard, wrapper, work, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
envelope = json.dumps({"tool": "echo", "input": {"text": "benchmark"}}).encode()
sides = {
    "switchboard tool echo": [switchboard, "tool", "echo", "--config", f"{work}/config.yaml", "--state-dir", f"{work}/state"],
    "node echo-wrapper.mjs": ["node", wrapper],
}
def once(argv):
    start = time.perf_counter()
    done = subprocess.run(argv, input=envelope, capture_output=True)
    elapsed = time.perf_counter() - start
    answer = json.loads(done.stdout)
    if done.returncode != 0 or answer.get("structuredContent") != {"text": "benchmark"}:
        sys.exit(f"{argv[0]} did not answer as expected (exit {done.returncode}): {done.stdout!r} {done.stderr!r}")
    return elapsed * 1000
for argv in sides.values():  # warm-up: page cache, history created
    for _ in range(5):
        once(argv)
times = {name: [] for name in sides}
for _ in range(calls):
    for name, argv in sides.items():
        times[name].append(once(argv))
print(f"{'':24} {'calls':>6} {'p50 ms':>8} {'mean ms':>8} {'p90 ms':>8}")
for name, values in times.items():
    values.sort()
    print(f"{name:24} {len(values):6} {statistics.median(values):8.1f} {statistics.fmean(values):8.1f} {values[int(len(values) * 0.9)]:8.1f}")
runner, node = (statistics.median(times[name]) for name in sides)
print(f"runner / node at p50: {runner / node:.2f}x (target at most 0.50x)")
PY
