#!/usr/bin/env bash
# Fails when JSON is parsed anywhere but in the json library (json/boundedjson.*): every JSON that
# enters the process (client, upstream, command, file, state) goes through BoundedJson, whose depth,
# value and byte limits keep a hostile document from being built (issue 23). Looks in backend,
# common, app, models and ui for nlohmann's parse, sax_parse, accept (a check that would let pass
# what BoundedJson refuses) and from_* readers, the _json literal and Qt's QJsonDocument::fromJson
# and QCborValue::fromCbor, and lists each with the fix.
#
# A line that must parse itself (a SAX scan that builds nothing) says why with a comment holding
# "json-parse-check: allowed" on it or on the line above.
#   scripts/check-json-parsers.sh [SOURCE_DIR]    (default: this checkout; CTest runs it)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

folders=()
for folder in backend common app models ui; do
    [[ -d $folder ]] && folders+=("$folder")
done
if [[ ${#folders[@]} -eq 0 ]]; then
    echo "check-json-parsers: no source folders (backend, common, app, models, ui) in $root" >&2
    exit 1
fi
mapfile -d '' files < <(find "${folders[@]}" -type f \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)

pattern='json::(parse|sax_parse|accept|from_cbor|from_msgpack|from_ubjson|from_bjdata|from_bson)[[:space:]]*\(|"_json|QJsonDocument::fromJson|QCborValue::fromCbor'
status=0
report=$(awk -v pattern="$pattern" '
    FNR == 1 { previous = "" }
    {
        if ($0 ~ pattern && $0 !~ /json-parse-check: allowed/ && previous !~ /json-parse-check: allowed/) {
            print FILENAME ":" FNR ": " $0
            found = 1
        }
        previous = $0
    }
    END { exit found }
' "${files[@]}") || status=$?
if [[ $status -ne 0 ]]; then
    echo "check-json-parsers: JSON parsed outside the json library (use BoundedJson::parse or parseOrdered from" >&2
    echo "json/boundedjson.h, with the Limits of where the text comes from):" >&2
    sed 's/^/  /' <<<"$report" >&2
    exit "$status"
fi
echo "check-json-parsers: ${#files[@]} files parse JSON only through BoundedJson"
