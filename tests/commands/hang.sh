#!/bin/sh
# A command tool that never answers: it says so on stderr and sleeps (a child in its process group).
echo "hanging on purpose" >&2
sleep 300
