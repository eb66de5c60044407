#!/usr/bin/env bash
# Installs what is missing, checks the formatting of every C++ file, builds with warnings as errors
# and runs every test (unit, integration, GUI, conformance); then builds with AddressSanitizer and
# UBSan and runs the unit tests (and the HTTP server's integration test) again; then builds the
# backend's tests with ThreadSanitizer and runs them; then runs each libFuzzer target for
# FUZZ_SECONDS (default 30) from its corpus.
#   scripts/test.sh              everything (what CI runs)
#   scripts/test.sh -L unit      only some labels, in the warnings-as-errors build
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
"$here/scripts/install-deps.sh" --test
jobs=$(nproc)
"$here/scripts/check-format.sh"

cmake --preset ci >/dev/null
cmake --build build/ci --parallel "$jobs"
if [[ $# -gt 0 ]]; then
    exec ctest --preset ci "$@"
fi
ctest --preset ci

cmake --preset ci-asan >/dev/null
cmake --build build/ci-asan --parallel "$jobs" --target sanitized_tests
ctest --preset ci-asan

cmake --preset ci-tsan >/dev/null
cmake --build build/ci-tsan --parallel "$jobs" --target tsan_tests
ctest --preset ci-tsan

"$here/tests/fuzz/run-fuzzers.sh"
