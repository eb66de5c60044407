#!/bin/sh
# A command tool that fails: says why on stderr and exits with status 3.
cat >/dev/null
echo "starting the frobnicator" >&2
echo "frobnicator: the disk is on fire" >&2
exit 3
