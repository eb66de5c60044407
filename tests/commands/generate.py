#!/usr/bin/env python3
# A command tool that prints JSON a hostile or careless tool could print (as a tool that prints a
# string the client sent would): input.shape "deep" prints input.depth nested arrays
# ([[[…]]]), "many" prints an array of input.count empty objects ([{},{},…]).
import json
import sys

given = json.load(sys.stdin).get("input", {})
shape = given.get("shape")
if shape == "deep":
    depth = int(given["depth"])
    sys.stdout.write("[" * depth + "]" * depth)
elif shape == "many":
    count = int(given["count"])
    sys.stdout.write("[" + "{}," * (count - 1) + "{}]")
else:
    sys.exit("unknown shape " + repr(shape))
sys.stdout.write("\n")
