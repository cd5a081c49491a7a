#!/usr/bin/env python3
"""Every replay printed by a full mutant self-test reproduces its failure.

Runs `kconform selftest` (every shipped mutant on every dtype it breaks),
takes each failure it prints and every replay command in it (`replay:` and
`shrunk case:`), runs the command, and requires that it exits 1 and prints a
failure of the same check with the same figure: the same header line
("<kernel> <dtype>: <check>: <why>", which holds the statistic of a
statistics, bias or bad-input failure) and the same `error:` line. It also
requires that the median size of the shrunk cases is at most 8 input
elements (issue 9) and prints it.

With --shard I/N it runs the I-th of N disjoint shares of the mutants (every
N-th one, from the I-th, in `kconform list --backends` order) so that ctest
runs the shares side by side: the whole self-test under ASan takes longer
than one test's timeout. Each share's median shrunk size must be at most 8,
which bounds the whole self-test's median too (at least half of every
share's runs, hence of all runs, are at most 8).

usage: replay_test.py KCONFORM [--shard I/N]
"""
import json
import re
import shlex
import subprocess
import sys

kc = sys.argv[1]
shard, shards = 0, 1
if len(sys.argv) == 4 and sys.argv[2] == "--shard":
    shard, shards = (int(x) for x in sys.argv[3].split("/"))
elif len(sys.argv) != 2:
    sys.exit("usage: replay_test.py KCONFORM [--shard I/N]")
SHRUNK_PREFIX = re.compile(r"^\(shrunk to \d+ input elements?\) ")


def blocks(text):
    """Failure messages: a header line, then its indented lines."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("  ") and cur is not None:
            cur.append(line)
            continue
        cur = None
        if not line or line.startswith(("CAUGHT ", "MISSED ", "PASS ", "FAIL ", "shrunk cases:")) or " of " in line and "results pass" in line:
            continue
        if re.match(r"^(\(shrunk to \d+ input elements?\) )?\S+ \S+: ", line):
            cur = [line]
            out.append(cur)
    return out


def header(block):
    return SHRUNK_PREFIX.sub("", block[0])


def figure(block):
    for line in block[1:]:
        if line.lstrip().startswith("error:"):
            return line.strip()
    return None


def commands(block):
    cmds = []
    for line in block[1:]:
        m = re.match(r"^\s+(replay|shrunk case):\s+(kconform run .*)$", line)
        if m:
            cmds.append(m.group(2))
    return cmds


listed = subprocess.run([kc, "list", "--backends", "--json"], capture_output=True, text=True, check=True)
names = [b["name"].removeprefix("mutant:") for b in json.loads(listed.stdout) if b["name"].startswith("mutant:")]
mine = names[shard::shards]
if not mine:
    sys.exit(f"FAIL: shard {shard}/{shards} of {len(names)} mutants is empty")
print(f"shard {shard}/{shards}: {len(mine)} of {len(names)} mutants")
selftest = subprocess.run([kc, "selftest"] + [a for n in mine for a in ("--mutant", n)], capture_output=True, text=True)
if selftest.returncode != 0:
    print("FAIL: the self-test itself failed\n" + selftest.stdout[-3000:] + selftest.stderr[-2000:])
    sys.exit(1)

failures = [b for b in blocks(selftest.stdout) if commands(b)]
problems, replays = [], 0
for b in failures:
    want_header, want_figure = header(b), figure(b)
    for cmd in commands(b):
        replays += 1
        argv = [kc] + shlex.split(cmd)[1:]
        run = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if run.returncode != 1:
            problems.append(f"{cmd}\n    exit {run.returncode}, expected 1 (a failure)\n    " + run.stdout[-600:])
            continue
        got = [g for g in blocks(run.stdout) if header(g) == want_header]
        if not got:
            problems.append(f"{cmd}\n    no failure '{want_header}' in its output:\n    " + run.stdout[-1200:])
            continue
        if want_figure and not any(figure(g) == want_figure for g in got):
            problems.append(f"{cmd}\n    same check, other figure: want '{want_figure}', got "
                            + ", ".join(repr(figure(g)) for g in got))

m = re.search(r"^shrunk cases: median (\S+) input elements over (\d+) runs \(largest (\d+)\)$", selftest.stdout, re.M)
if not m:
    problems.append("the self-test printed no shrunk-case summary")
else:
    print(f"shrunk cases: median {m.group(1)} input elements over {m.group(2)} runs, largest {m.group(3)}")
    if float(m.group(1)) > 8:
        problems.append(f"the median shrunk case has {m.group(1)} input elements (at most 8 is the goal)")

print(f"{replays} replay commands from {len(failures)} printed failures")
if replays == 0:
    problems.append("the self-test printed no replay command")
for p in problems:
    print("FAIL: " + p)
print("all replays reproduce" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
