#!/usr/bin/env bash
# Installs what is missing, checks the formatting of every C++ file and the backend's layers
# (scripts/check-layers.sh: no include against their order), builds with warnings as errors
# and runs every test (unit, integration, GUI, conformance); then builds the unit tests (and the
# HTTP server's integration tests) with AddressSanitizer and UBSan under clang, runs them, and runs
# each libFuzzer target for FUZZ_SECONDS (default 30) from its corpus in that same build; then
# builds the backend's tests with ThreadSanitizer and runs them. Each stage prints its time, and
# the times are summed up at the end (also when a stage fails).
#   scripts/test.sh              everything (what CI runs)
#   scripts/test.sh -L unit      only some labels, in the warnings-as-errors build
#   scripts/test.sh --from asan  the sanitizer stages only (asan: ASan, the fuzzers and TSan; tsan: TSan)
#
# Builds go through ccache (Debian's package, installed here) with precompiled headers; a sanitizer
# stage builds only the tests it runs. ccache keeps its cache in ~/.cache/ccache (CCACHE_DIR moves it).
# Tests run one per core (ctest --parallel), and so do the fuzzers.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

declare -a stage_times=()
started=$SECONDS
summary() {
    local status=$?
    if [[ ${#stage_times[@]} -gt 0 ]]; then
        echo "== test.sh stage times"
        printf '   %s\n' "${stage_times[@]}"
        echo "   total: $((SECONDS - started)) s$([[ $status -ne 0 ]] && echo " (failed, exit $status)")"
    fi
}
trap summary EXIT
# stage NAME COMMAND...: runs the command and records how long it took.
stage() {
    local name=$1
    shift
    local begin=$SECONDS
    echo "== $name"
    "$@"
    stage_times+=("$name: $((SECONDS - begin)) s")
}

# quiet COMMAND...: configure steps print only when they fail.
quiet() {
    local log
    log=$(mktemp)
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

jobs=$(nproc)
stage "install" "$here/scripts/install-deps.sh" --test
stage "format" "$here/scripts/check-format.sh"
stage "layers" "$here/scripts/check-layers.sh"

from=ci
if [[ ${1:-} == --from ]]; then
    case ${2:-} in
    ci | asan | tsan) from=$2 ;;
    *)
        echo "test.sh: --from takes ci, asan or tsan, not '${2:-}'" >&2
        exit 2
        ;;
    esac
    shift 2
fi

if [[ $from == ci ]]; then
    stage "configure (ci)" quiet cmake --preset ci
    stage "build (ci)" cmake --build build/ci --parallel "$jobs"
    if [[ $# -gt 0 ]]; then
        stage "tests (ci, $*)" ctest --preset ci --parallel "$jobs" "$@"
        exit 0
    fi
    stage "tests (ci)" ctest --preset ci --parallel "$jobs"
fi

if [[ $from == ci || $from == asan ]]; then
    stage "configure (asan)" quiet cmake --preset ci-asan
    stage "build (asan: sanitized tests and fuzzers)" \
        cmake --build build/ci-asan --parallel "$jobs" --target sanitized_tests fuzzers
    stage "tests (asan)" ctest --preset ci-asan --parallel "$jobs"
    stage "fuzzers" env FUZZ_PRESET=ci-asan "$here/tests/fuzz/run-fuzzers.sh"
fi

stage "configure (tsan)" quiet cmake --preset ci-tsan
stage "build (tsan: the backend's tests)" cmake --build build/ci-tsan --parallel "$jobs" --target tsan_tests
stage "tests (tsan)" ctest --preset ci-tsan --parallel "$jobs"
