#!/usr/bin/env python3
"""Plant a hostile UUID in a copy of a recording: plant-uuid.py NVML_JSON
sets gpus[0].uuid to one with quotes and a trailing backslash, the string
that once turned plan's CEL selector into one matching every device."""
import json
import sys

UUID = 'GPU-x" || true || "\\'
path = sys.argv[1]
d = json.load(open(path))
d["gpus"][0]["uuid"] = UUID
json.dump(d, open(path, "w"))
