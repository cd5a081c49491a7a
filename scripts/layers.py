#!/usr/bin/env python3
"""The folders of kconform as layers, drawn from the includes, and checked.

Each top-level source folder has a rank; a file may include its own folder
and folders of a lower rank, never one of its rank or above (an upward
include, or a loop between two folders). The grading side's wall against the
implementation (kernels/, backends/) is tests/wall_test.sh's; this is the
order inside both sides.

  scripts/layers.py SOURCE_DIR            the folder graph, rank by rank, and every upward include
  scripts/layers.py SOURCE_DIR --check    the same; exit 1 when an include goes up
  scripts/layers.py --self-test           a planted upward include must fail the check

Run as ctest `unit.layers` (the check and the self-test).
"""
import os
import re
import sys
import tempfile

import structure_check
from collections import Counter, defaultdict

# Lowest first. One line a rank; the folders of a line may not include each other.
LAYERS = [
    ["core", "kconform"],   # values, tensors, the backend interface; the plug-in ABI header (include/kconform)
    ["kernels"],            # the reference port
    ["oracles"],            # exact values, bounds, replays
    ["contracts"],          # the entries
    ["backends"],           # the reference, the mutants, the plug-in worker
    ["generators"],         # RapidCheck building blocks
    ["drivers"],            # one per computation shape
    ["engine"],             # grading, tallies, the case loop, the check interface
    ["checks"],             # the checks beyond accuracy, handed to the engine
    ["reports"],            # results JSON, merging, the site
    ["fkc"],                # the framework's contract files
    ["cli"],                # the command line
    ["adapters", "bench", "examples"],  # consumers: nothing includes them
]
# Where a folder's files live, when not at the top of the tree.
ROOTS = {"kconform": "include/kconform"}
SOURCE = (".h", ".hpp", ".c", ".cc", ".cpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/', re.M)


def rank_of():
    return {folder: i for i, line in enumerate(LAYERS) for folder in line}


def includes(src):
    """(from_folder, to_folder, file, line) for every include naming another known folder."""
    ranks = rank_of()
    for folder in ranks:
        root = os.path.join(src, ROOTS.get(folder, folder))
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(SOURCE):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for m in INCLUDE.finditer(text):
                    to = m.group(1)
                    if to in ranks and to != folder:
                        line = text.count("\n", 0, m.start()) + 1
                        yield folder, to, os.path.relpath(path, src), line


def report(src, out=sys.stdout):
    """Prints the graph; returns the upward includes."""
    ranks = rank_of()
    edges = defaultdict(Counter)
    upward = []
    for frm, to, path, line in includes(src):
        edges[frm][to] += 1
        if ranks[to] >= ranks[frm]:
            upward.append(f"{path}:{line}: {frm} (rank {ranks[frm]}) includes {to} (rank {ranks[to]})")
    for i, line in enumerate(LAYERS):
        for folder in line:
            below = ", ".join(f"{to} {n}" for to, n in sorted(edges[folder].items(), key=lambda e: -ranks[e[0]]))
            print(f"{i:2} {folder:10} -> {below or '(nothing)'}", file=out)
    for u in upward:
        print("UPWARD: " + u, file=out)
    return upward


def self_test():
    """A tree whose core includes the engine, and whose engine and checks include each other, must fail."""
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in {
            "core/a.h": '#include "core/b.h"\n',
            "engine/e.h": '#include "checks/c.h"\n#include "core/a.h"\n',
            "checks/c.h": '#include "engine/e.h"\n',
            "core/b.h": '#include "engine/e.h"\n',
            "include/kconform/p.h": '#include "core/a.h"\n',
        }.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
            with open(os.path.join(tmp, path), "w") as f:
                f.write(text)
        with open(os.devnull, "w") as null:
            up = report(tmp, null)
    want = {"core/b.h:1: core (rank 0) includes engine (rank 7)",
            "engine/e.h:1: engine (rank 7) includes checks (rank 8)",
            "include/kconform/p.h:1: kconform (rank 0) includes core (rank 0)"}
    if set(up) != want:
        print("FAIL: the planted upward includes were not all found, or more were:\n  " + "\n  ".join(up))
        return 1
    print(f"ok: the {len(want)} planted upward includes (one between folders of a rank) fail the check")
    return 0


if __name__ == "__main__":
    sys.exit(structure_check.main(sys.argv, __doc__, report, self_test, "upward include(s)"))
