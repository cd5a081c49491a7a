#!/usr/bin/env python3
"""same_results.py A.json B.json: exit 0 when two results documents are the
same apart from timings (durations, start times, seconds per result) and the
command line, else print the first difference and exit 1. `run -j N` and a
merged sharded campaign must write the document one process writes."""
import json
import sys

TIMING = ("duration_s", "started_at", "command")


def strip(d):
    for run in [d.get("run", {})] + d.get("runs", []):
        for k in TIMING:
            run.pop(k, None)
    for k in d.get("kernels", []):
        for r in k.get("results", []):
            r.pop("seconds", None)
    return d


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: present in only one"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {str(a)[:200]!r} != {str(b)[:200]!r}"


a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
d = first_difference(a, b)
if d:
    print(f"{sys.argv[1]} and {sys.argv[2]} differ at {d}")
    sys.exit(1)
