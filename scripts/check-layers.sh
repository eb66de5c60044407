#!/usr/bin/env bash
# Lists which folder of the backend includes which (json/, common/ and each folder of backend/) and
# fails on any include against the layers' order (issue 26): each layer may include only the layers
# before it, and the four features (adapters, git, sinks, commands) never include each other.
#
#   json → common → protocol → events → store → policy → auth → tools → interaction → transport
#        → adapters | git | sinks | commands → core (backend/core, backend/operator and backend/config)
#
# The build refuses most such includes already (a layer's only include root is its own staging
# directory, see backend/CMakeLists.txt); this check also finds those the compiler would let
# through: a relative "../folder/x.h", a header of a folder in the same layer's reach by accident,
# a file at backend/'s top level, and a new folder that belongs to no layer yet.
#   scripts/check-layers.sh [SOURCE_DIR]    (default: this checkout; CTest runs it)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# Each folder's layer and rank, lowest first. Folders of one rank but another layer are siblings
# that must not include each other (the features).
declare -A rank=() layer=()
place() {
    local r=$1 l=$2
    shift 2
    for folder in "$@"; do
        rank[$folder]=$r
        layer[$folder]=$l
    done
}
place 0 json json
place 1 common common
place 2 protocol protocol
place 3 events events
place 4 store store
place 5 policy policy
place 6 auth auth
place 7 tools tools
place 8 interaction interaction
place 9 transport transport
place 10 adapters adapters
place 10 git git
place 10 sinks sinks
place 10 commands commands
place 11 core core operator config

# The folder a path (relative to the root) belongs to: json, common, or backend/<folder> as
# <folder>; "backend" for a file at backend/'s top level; empty outside these.
folder_of() {
    local path=$1
    case $path in
    json/*) echo json ;;
    common/*) echo common ;;
    backend/*/*)
        path=${path#backend/}
        echo "${path%%/*}"
        ;;
    backend/*) echo backend ;;
    *) echo "" ;;
    esac
}

mapfile -d '' files < <(find json common backend -type f \( -name '*.cpp' -o -name '*.h' \) -print0 2>/dev/null | sort -z)
if [[ ${#files[@]} -eq 0 ]]; then
    echo "check-layers: no sources under json/, common/ or backend/ in $root" >&2
    exit 1
fi

# "store", or "core (config)" for a folder named otherwise than its layer.
name() {
    if [[ ${layer[$1]} == "$1" ]]; then echo "$1"; else echo "${layer[$1]} ($1)"; fi
}

declare -A edges=()
problems=()
for file in "${files[@]}"; do
    from=$(folder_of "$file")
    if [[ $from == backend ]]; then
        problems+=("$file: at backend/'s top level, in no layer: move it into the folder of its layer")
        continue
    fi
    if [[ -z ${rank[$from]+x} ]]; then
        problems+=("$file: backend/$from belongs to no layer: add it to one (backend/CMakeLists.txt, scripts/check-layers.sh, README)")
        continue
    fi
    dir=$(dirname "$file")
    while IFS=: read -r line included; do
        # The header as the compiler finds it: next to the file first, then under the include roots.
        target=
        if [[ -f $dir/$included ]]; then
            target=$(realpath -m --no-symlinks --relative-to=. "$dir/$included")
        elif [[ -f backend/$included ]]; then
            target=backend/$included
        elif [[ -f json/$included ]]; then
            target=json/$included
        elif [[ -f common/$included ]]; then
            target=common/$included
        fi
        [[ -z $target ]] && continue # a system, Qt or generated header
        to=$(folder_of "$target")
        [[ $to == "$from" ]] && continue
        if [[ -z $to || $to == backend || -z ${rank[$to]+x} ]]; then
            problems+=("$file:$line: includes \"$included\" ($target), which is in no layer")
            continue
        fi
        edges["$from → $to"]=$((${edges["$from → $to"]:-0} + 1))
        if ((rank[$to] > rank[$from])); then
            problems+=("$file:$line: includes \"$included\": $(name "$from") may not use $(name "$to"), a layer above it")
        elif ((rank[$to] == rank[$from])) && [[ ${layer[$to]} != "${layer[$from]}" ]]; then
            problems+=("$file:$line: includes \"$included\": the features ${layer[$from]} and ${layer[$to]} never include each other (move what they share below both)")
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" | sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done

echo "check-layers: folder → folder includes (number of includes):"
for edge in "${!edges[@]}"; do
    from=${edge%% → *}
    printf '%02d %s\n' "${rank[$from]}" "$edge (${edges[$edge]})"
done | sort | cut -d' ' -f2- | sed 's/^/  /'

if [[ ${#problems[@]} -gt 0 ]]; then
    echo "check-layers: ${#problems[@]} includes against the layers' order (README, \"Layers of the backend\"):" >&2
    printf '  %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "check-layers: ${#files[@]} files include only layers below their own"
