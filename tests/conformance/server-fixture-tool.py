#!/usr/bin/env python3
# The conformance suite's fixture tools, served by Switchboard as command tools (server-fixtures.yaml):
# reads the call's envelope from stdin and prints the CallToolResult the suite's server scenarios
# expect of the tool named TOOL_NAME (their descriptions give the shapes).
import json
import os
import re
import sys
import time

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
envelope = json.load(sys.stdin)
given = envelope.get("input") or {}
tool = os.environ["TOOL_NAME"]


def text(value):
    return {"type": "text", "text": value}


def resource(uri, mime, value):
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "text": value}}


if tool == "test_simple_text":
    out = {"content": [text("This is a simple text response for testing.")]}
elif tool == "test_image_content":
    out = {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}
elif tool == "test_audio_content":
    out = {"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}
elif tool == "test_embedded_resource":
    out = {"content": [resource("test://embedded-resource", "text/plain", "This is an embedded resource content.")]}
elif tool == "test_multiple_content_types":
    out = {"content": [text("Multiple content types test:"), {"type": "image", "data": PNG, "mimeType": "image/png"},
                       resource("test://mixed-content-resource", "application/json",
                                json.dumps({"test": "data", "value": 123}))]}
elif tool == "test_error_handling":
    out = {"isError": True, "content": [text("This tool intentionally returns an error for testing")]}
elif tool == "test_tool_with_progress":
    # A command cannot report progress itself: Switchboard's heartbeats do, once a second
    # (execution.heartbeatSeconds: 1), for a call that stays silent.
    time.sleep(4.5)
    out = {"content": [text(str(envelope.get("metadata", {}).get("progressToken", 0)))]}
elif tool in ("json_schema_2020_12_tool", "header_echo"):
    out = {"content": [text(json.dumps(given))]}
elif tool == "greet":
    out = {"content": [text("Hello, %s!" % given.get("name", "world"))]}
elif tool == "slow_compute":
    # 1.5 s more than asked, so that even "seconds: 0" outlasts tasks.promoteAfterMs (800) by far and a
    # task-declaring client always gets a task, while greet (a few tens of ms) never does.
    time.sleep(float(given.get("seconds", 0)) + 1.5)
    out = {"content": [text("computed %s" % given.get("label", ""))]}
elif tool == "failing_job":
    time.sleep(2)
    out = {"isError": True, "content": [text("failing_job failed, as it always does")]}
elif tool == "test_trigger_tool_change":
    # Rewrites this tool's description in the configuration file (the working directory holds the
    # copy with-switchboard.sh made); Switchboard reloads it and tells subscriptions/listen streams.
    config = os.path.join(os.getcwd(), "config.yaml")
    with open(config, encoding="utf-8") as f:
        content = f.read()
    pattern = r"tool list \(generation (\d+)\)"
    generation = int(re.search(pattern, content).group(1)) + 1
    with open(config + ".new", "w", encoding="utf-8") as f:
        f.write(re.sub(pattern, "tool list (generation %d)" % generation, content))
    os.replace(config + ".new", config)
    out = {"content": [text("tool list changed (generation %d)" % generation)]}
else:
    out = {"isError": True, "content": [text("no fixture named " + tool)]}
json.dump(out, sys.stdout)
sys.stdout.write("\n")
