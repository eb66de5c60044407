#!/bin/sh
# A command tool that floods stdout far beyond any bound.
cat >/dev/null
yes "flooding stdout with lines that never end"
