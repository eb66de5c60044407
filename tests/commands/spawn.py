#!/usr/bin/env python3
# A command tool that starts a child which outlives it: `sleep 300` in the background (keeping the
# tool's stdout and stderr open), its pid written to input.pidFile. Then, by input.then:
# "exit" prints a result and exits (the child is orphaned), "hang" sleeps (for timeout and
# cancellation tests).
import json
import os
import subprocess
import sys
import time

envelope = json.load(sys.stdin)
given = envelope["input"]
child = subprocess.Popen(["sleep", "300"])
with open(given["pidFile"] + ".tmp", "w") as f:
    f.write(str(child.pid))
os.rename(given["pidFile"] + ".tmp", given["pidFile"])
if given.get("then") == "hang":
    sys.stderr.write("parent hangs with its child\n")
    sys.stderr.flush()
    time.sleep(300)
json.dump({"child": child.pid}, sys.stdout)
sys.stdout.write("\n")
sys.stdout.flush()
os._exit(0)
