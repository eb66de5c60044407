#!/bin/sh
# A command tool that exits 0 but prints something that is not JSON.
cat >/dev/null
echo "this is not json {"
echo "printed garbage" >&2
