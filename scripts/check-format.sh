#!/usr/bin/env bash
# Checks that every tracked C++ file is formatted as the root .clang-format says, with clang-format
# 14 (the version scripts/install-deps.sh --test installs; set CLANG_FORMAT to use another), and
# lists the files that are not with the command that fixes them. Exits 1 when a file is off.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
clang_format=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$clang_format" >/dev/null; then
    echo "check-format: $clang_format not found (scripts/install-deps.sh --test installs it)" >&2
    exit 1
fi

mapfile -d '' files < <(git ls-files -z -- '*.cpp' '*.h')
if [[ ${#files[@]} -eq 0 ]]; then
    echo "check-format: git lists no C++ files in $here" >&2
    exit 1
fi
status=0
report=$("$clang_format" --style=file --dry-run --Werror "${files[@]}" 2>&1) || status=$?
# One line per difference: "<file>:<line>:<column>: error: code should be clang-formatted [...]".
mapfile -t offenders < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$report" | sort -u)
if [[ $status -ne 0 && ${#offenders[@]} -eq 0 ]]; then
    # Not a formatting difference: a broken .clang-format, an unreadable file, ...
    echo "check-format: $clang_format failed:" >&2
    echo "$report" >&2
    exit 1
fi
if [[ ${#offenders[@]} -gt 0 ]]; then
    echo "check-format: ${#offenders[@]} of ${#files[@]} C++ files are not formatted as .clang-format says:" >&2
    printf '  %s\n' "${offenders[@]}" >&2
    echo "Fix them with:" >&2
    printf '  %s -i' "$clang_format" >&2
    printf ' %q' "${offenders[@]}" >&2
    printf '\n' >&2
    exit 1
fi
echo "check-format: all ${#files[@]} C++ files are formatted"
