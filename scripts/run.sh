#!/usr/bin/env bash
# Installs what is missing, builds Switchboard (release), and starts the console: a window when a
# display is available, otherwise headless. Arguments go to switchboard (try --help).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/install-deps.sh"
cmake --preset release -S "$here" >/dev/null
cmake --build "$here/build/release" --parallel
exec "$here/build/release/app/switchboard" "$@"
