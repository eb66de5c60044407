#!/usr/bin/env bash
# git_diff's memory (issue 23, item 6): peak resident memory of one git_diff, and of three at once,
# on a 57 MB change (one text file rewritten line by line) and on a change of the same size spread
# over 570 files. Builds bench_gitdiff in the given build directory (default build/ci).
#
#   tests/bench/run-git-diff-bench.sh [build-directory]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/ci}
cmake --build "$build" --target bench_gitdiff >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_repository() { # name, files, lines per file
    local repo=$work/root/$1
    mkdir -p "$repo"
    git -C "$repo" init -q -b main
    python3 - "$repo" "$2" "$3" x <<'PY'
import sys
repo, files, lines, filler = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for f in range(files):
    with open(f"{repo}/f{f:03}.txt", "w") as out:
        out.write("".join(f"line {i} {filler * 50}\n" for i in range(lines)))
PY
    git -C "$repo" add -A
    git -C "$repo" -c user.name=Bench -c user.email=bench@example.com commit -qm base
    python3 - "$repo" "$2" "$3" y <<'PY'
import sys
repo, files, lines, filler = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for f in range(files):
    with open(f"{repo}/f{f:03}.txt", "w") as out:
        out.write("".join(f"LINE {i} {filler * 50}\n" for i in range(lines)))
PY
}
echo "Making the repositories in $work …"
for copy in 1 2 3; do
    make_repository "one-file-$copy" 1 950000
    make_repository "many-files-$copy" 570 1600
done
du -sh --exclude=.git "$work/root/one-file-1" "$work/root/many-files-1"
for shape in one-file many-files; do
    echo "== $shape, one call"
    "$build/tests/bench_gitdiff" "$work/root" "$work/root/$shape-1"
    echo "== $shape, three at once"
    "$build/tests/bench_gitdiff" "$work/root" "$work/root/$shape-1" "$work/root/$shape-2" "$work/root/$shape-3"
done
