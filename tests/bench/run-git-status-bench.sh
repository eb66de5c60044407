#!/usr/bin/env bash
# Benchmark for git_status (issue 10): a generated repository of 50,000 files in 500 folders with
# 100 modified files and one untracked file; `git status --porcelain` (the git program) and
# git_status through MCP on the same tree, side by side in one run:
#   - the git program: the median of 11 runs after a warm-up run;
#   - git_status's first call on a freshly started server (nothing cached, nothing watched);
#   - git_status's repeat calls on the unchanged tree: the median of 21 calls, after the server
#     has watched the tree (it does so in the background after the first call).
# Every answer's porcelain lines are compared with git's; a difference fails the run.
#
#   tests/bench/run-git-status-bench.sh [rounds]   (default 3: the whole measurement, repeated)
#
# Targets: first call at most 1.2x the git program's time; repeat calls at most 0.25x.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${1:-3}
version=2025-06-18
work=$(mktemp -d)
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
source "$here/bench-lib.sh"
build_release

repo=$work/root/repo
echo "Generating 50,000 files in 500 folders in $repo …"
mkdir -p "$repo"
git -C "$repo" init -q -b main
python3 - "$repo" <<'PY'
import os, sys
repo = sys.argv[1]
for d in range(500):
    folder = os.path.join(repo, f"folder{d:03}")
    os.mkdir(folder)
    for f in range(100):
        with open(os.path.join(folder, f"file{f:03}.txt"), "w") as out:
            out.write(f"folder {d} file {f}\n")
PY
git -C "$repo" add -A
git -C "$repo" -c user.name=Bench -c user.email=bench@example.com commit -qm "50,000 files"
# Past the index's second, so no entry is racily clean, and let git refresh the index once.
sleep 1.1
git -C "$repo" status --porcelain >/dev/null
python3 - "$repo" <<'PY'
import os, sys
repo = sys.argv[1]
for i in range(100):
    with open(os.path.join(repo, f"folder{i * 5:03}", f"file{i:03}.txt"), "a") as out:
        out.write("changed\n")
with open(os.path.join(repo, "untracked.txt"), "w") as out:
    out.write("new\n")
PY
cat >"$work/none.yaml" <<EOF2
git:
  roots: [$work/root]
EOF2

for round in $(seq 1 "$rounds"); do
    start_binary "$switchboard"
    open_session
    python3 - "$URL" "$TOKEN" "$SESSION" "$version" "$repo" <<'PY'
import http.client, json, statistics, subprocess, sys, time, urllib.parse
url, token, session, version, repo = sys.argv[1:6]
target = urllib.parse.urlparse(url)
connection = http.client.HTTPConnection(target.hostname, target.port)
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "Authorization": f"Bearer {token}", "Mcp-Session-Id": session, "MCP-Protocol-Version": version}
next_id = [100]

def git_lines():
    out = subprocess.run(["git", "-C", repo, "status", "--porcelain", "-z"], check=True,
                         capture_output=True).stdout.decode()
    fields, lines, i = out.split("\0"), [], 0
    while i < len(fields) and fields[i]:
        entry = fields[i]
        if entry[0] in "RC":  # "XY new" then the old path
            lines.append(f"{entry[:3]}{fields[i + 1]} -> {entry[3:]}")
            i += 2
        else:
            lines.append(entry)
            i += 1
    return sorted(lines)

def git_program_ms():
    start = time.perf_counter()
    subprocess.run(["git", "-C", repo, "status", "--porcelain"], check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000

def mcp_status():
    next_id[0] += 1
    body = json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": "tools/call",
                       "params": {"name": "git_status", "arguments": {"repo_path": repo}}})
    start = time.perf_counter()
    connection.request("POST", target.path, body, headers)
    response = connection.getresponse()
    text = response.read().decode()
    elapsed = (time.perf_counter() - start) * 1000
    if response.status != 200:
        sys.exit(f"git_status: HTTP {response.status}: {text[:500]}")
    if text.startswith("event:") or text.startswith("data:") or "\ndata:" in text:
        text = [line[5:] for line in text.splitlines() if line.startswith("data:") and '"result"' in line][-1]
    result = json.loads(text)["result"]
    if result.get("isError"):
        sys.exit(f"git_status failed: {result}")
    return elapsed, sorted(result["structuredContent"]["porcelain"])

expected = git_lines()
git_program_ms()  # warm-up: the tree in the page cache for both
git_ms = statistics.median(git_program_ms() for _ in range(11))
first_ms, lines = mcp_status()
if lines != expected:
    sys.exit(f"first git_status differs from git: {len(lines)} vs {len(expected)} lines")
time.sleep(3)  # the server watches the tree and warms its answer in the background
repeats = []
for _ in range(21):
    elapsed, lines = mcp_status()
    if lines != expected:
        sys.exit("a repeat git_status differs from git")
    repeats.append(elapsed)
repeat_ms = statistics.median(repeats)
print(f"git status --porcelain (median of 11): {git_ms:7.1f} ms")
print(f"git_status first call:                 {first_ms:7.1f} ms   ratio {first_ms / git_ms:.2f}x   (target <= 1.2x)")
print(f"git_status repeat calls (median of 21): {repeat_ms:6.1f} ms   ratio {repeat_ms / git_ms:.2f}x   (target <= 0.25x)")
print(f"answers identical to git's: {len(expected)} lines, every call")
PY
    stop_server
done
