#!/usr/bin/env bash
# Builds the libFuzzer targets (the fuzz preset: clang 14, ASan and UBSan, build/fuzz) and runs
# each for a bounded time, starting from its corpus in tests/fuzz/corpus/<target>/. Fails when a
# target crashes, hangs, runs out of memory or leaks, and prints the input that does it.
#   tests/fuzz/run-fuzzers.sh                     every target, FUZZ_SECONDS (default 30) each
#   tests/fuzz/run-fuzzers.sh -t 600 fuzz_jsonrpc one target for ten minutes
#   FUZZ_PRESET=ci-asan tests/fuzz/run-fuzzers.sh  in the sanitized tests' build (what scripts/test.sh does)
# Targets run side by side, one per core (FUZZ_JOBS sets how many at once).
# New inputs that reach new code go to build/fuzz/corpus/<target>/, never into the repository;
# copy the ones worth keeping into tests/fuzz/corpus/<target>/ by hand. Reproduce a crash with
#   build/fuzz/tests/fuzz/<target> <reproducer>
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"

seconds=${FUZZ_SECONDS:-30}
if [[ ${1:-} == -t ]]; then
    seconds=$2
    shift 2
fi
all_targets=(fuzz_httphead fuzz_jsonrpc fuzz_schemavalidator fuzz_gitindexfile)
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then targets=("${all_targets[@]}"); fi
for target in "${targets[@]}"; do
    if [[ ! " ${all_targets[*]} " == *" $target "* ]]; then
        echo "run-fuzzers: unknown target $target (known: ${all_targets[*]})" >&2
        exit 2
    fi
done

preset=${FUZZ_PRESET:-fuzz}
build=build/$preset
cmake --preset "$preset" >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"

# Per target: the dictionary and the longest input. fuzz_httphead's limits are 2 KiB of head and
# 8 KiB of body, so its inputs must be able to exceed both.
declare -A dictionary=([fuzz_httphead]=http.dict [fuzz_jsonrpc]=json.dict [fuzz_schemavalidator]=json.dict
    [fuzz_gitindexfile]=gitindex.dict)
declare -A max_len=([fuzz_httphead]=12288 [fuzz_jsonrpc]=8192 [fuzz_schemavalidator]=8192 [fuzz_gitindexfile]=16384)

# fuzz_one TARGET: runs one target from its corpus; its log is $build/TARGET.log, its exit status
# goes to $build/TARGET.status.
fuzz_one() {
    local target=$1
    local seeds=tests/fuzz/corpus/$target
    local work=$build/corpus/$target
    local artifacts=$build/artifacts/$target
    mkdir -p "$work" "$artifacts"
    # Only this run's findings count.
    rm -f "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/slow-unit-*
    local status=0
    # -timeout: one input taking longer than 10 s is a hang; -rss_limit_mb: the process growing past
    # 2 GiB is a memory bomb (issue 8 item 5 was 1.6-2.2 GB).
    "$build/tests/fuzz/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${max_len[$target]}" \
        -dict="tests/fuzz/${dictionary[$target]}" -artifact_prefix="$artifacts/" -print_final_stats=1 \
        "$work" "$seeds" >"$build/$target.log" 2>&1 || status=$?
    echo "$status" >"$build/$target.status"
}

for target in "${targets[@]}"; do
    seeds=tests/fuzz/corpus/$target
    if [[ ! -d $seeds ]] || [[ -z $(ls -A "$seeds") ]]; then
        echo "run-fuzzers: no seed corpus in $seeds" >&2
        exit 1
    fi
done

# One target per core at a time: each still gets its full time on a core of its own, and the whole
# run takes the targets' time divided by the cores (issue 23, item 17).
parallel=${FUZZ_JOBS:-$(nproc)}
running=0
for target in "${targets[@]}"; do
    echo "== $target: ${seconds}s from tests/fuzz/corpus/$target"
    rm -f "$build/$target.status"
    fuzz_one "$target" &
    running=$((running + 1))
    if [[ $running -ge $parallel ]]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true

failed=()
for target in "${targets[@]}"; do
    artifacts=$build/artifacts/$target
    echo "== $target"
    grep -E '^(#[0-9]+ *DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)' \
        "$build/$target.log" || true
    status=$(cat "$build/$target.status" 2>/dev/null || echo "no status: the runner itself died")
    if [[ $status != 0 ]]; then
        echo "run-fuzzers: $target FAILED (exit $status); the last lines of $build/$target.log:" >&2
        tail -n 60 "$build/$target.log" >&2
        found=$(find "$artifacts" -type f | sort)
        if [[ -n $found ]]; then
            echo "run-fuzzers: reproduce with:" >&2
            while read -r reproducer; do
                echo "  $build/tests/fuzz/$target $reproducer" >&2
            done <<<"$found"
        fi
        failed+=("$target")
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "run-fuzzers: failed: ${failed[*]}" >&2
    exit 1
fi
echo "run-fuzzers: ${targets[*]}: no crash, hang, leak or memory bomb in ${seconds}s each"
