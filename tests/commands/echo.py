#!/usr/bin/env python3
# A command tool that succeeds: reads the envelope from stdin and prints one JSON value. With
# input.reply it prints that value as it is (a CallToolResult, a string, a number); otherwise an
# object echoing the envelope, TOOL_NAME and the environment the tool was given. With input.exit it
# then exits with that status.
import json
import os
import sys

envelope = json.load(sys.stdin)
given = envelope.get("input", {})
if "reply" in given:
    json.dump(given["reply"], sys.stdout)
else:
    json.dump({"envelope": envelope, "toolName": os.environ.get("TOOL_NAME"),
               "environment": dict(os.environ), "cwd": os.getcwd()}, sys.stdout)
sys.stdout.write("\n")
sys.stdout.flush()
sys.exit(given.get("exit", 0))
