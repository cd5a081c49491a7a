#!/usr/bin/env python3
"""Small pieces: every source file at most 400 lines, every function at most 80.

  scripts/sizes.py SOURCE_DIR            the largest files and functions, and every one over its limit
  scripts/sizes.py SOURCE_DIR --check    the same; exit 1 when one is over
  scripts/sizes.py --self-test           a planted long file and long function must fail the check

Functions are found by Universal Ctags (its definitions with their end
lines; a lambda counts as a function). Data tables are exempt: a contract
family's `register_<family>` in contracts/ is its table of entries, one
declarative entry per kernel. Run as ctest `unit.sizes`.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import structure_check

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80
SOURCE = (".h", ".hpp", ".c", ".cc", ".cpp")
SKIP_DIRS = {".git", "corpus", "docs", "deploy"}


def is_data_table(path, name):
    return path.startswith("contracts/") and name.startswith("register_")


def source_files(src):
    for dirpath, dirs, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                         and not (rel == "." and d.startswith(".")))
        for name in sorted(files):
            if name.endswith(SOURCE):
                yield os.path.relpath(os.path.join(dirpath, name), src)


def file_sizes(src, files):
    out = []
    for path in files:
        with open(os.path.join(src, path), encoding="utf-8", errors="replace") as f:
            out.append((sum(1 for _ in f), path))
    return out


def function_sizes(src, files):
    ctags = shutil.which("ctags")
    if not ctags:
        sys.exit("scripts/sizes.py needs Universal Ctags (Debian: universal-ctags, scripts/install-deps.sh)")
    cmd = [ctags, "--languages=C,C++", "--kinds-C=f", "--kinds-C++=f", "--fields=+ne", "-x",
           "--_xformat=%{line} %{end} %F %N", "-L", "-"]
    listed = subprocess.run(cmd, cwd=src, input="\n".join(files), capture_output=True, text=True, check=True)
    out = []
    for line in listed.stdout.splitlines():
        parts = line.split(" ", 3)
        if len(parts) != 4 or not parts[1].isdigit():
            continue  # (a definition ctags could not close)
        begin, end, path, name = int(parts[0]), int(parts[1]), parts[2], parts[3]
        out.append((end - begin + 1, f"{path}:{begin}", name, is_data_table(path, name)))
    return out


def report(src, out=sys.stdout, top=8):
    """Prints the largest files and functions; returns the pieces over their limit."""
    files = list(source_files(src))
    fs = sorted(file_sizes(src, files), reverse=True)
    fn = sorted(function_sizes(src, files), reverse=True)
    print(f"largest files (limit {MAX_FILE_LINES} lines):", file=out)
    for n, path in fs[:top]:
        print(f"  {n:5} {path}", file=out)
    print(f"largest functions (limit {MAX_FUNCTION_LINES} lines; data tables exempt):", file=out)
    for n, where, name, table in [f for f in fn if not f[3]][:top]:
        print(f"  {n:5} {where} {name}", file=out)
    over = [f"{path}: {n} lines (file)" for n, path in fs if n > MAX_FILE_LINES]
    over += [f"{where}: {name}, {n} lines" for n, where, name, table in fn if n > MAX_FUNCTION_LINES and not table]
    for o in over:
        print("OVER: " + o, file=out)
    return over


def self_test():
    """A tree with a 401-line file and an 81-line function (and an exempt table) must fail on exactly those two."""
    def body(n):  # a function of n lines
        return "".join(f"  x += {i};\n" for i in range(n - 3))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "engine"))
        os.makedirs(os.path.join(tmp, "contracts"))
        with open(os.path.join(tmp, "engine", "long.cpp"), "w") as f:
            f.write("int long_function(int x) {\n" + body(82) + "  return x;\n}\n")
            f.write("int short_function(int x) {\n" + body(80) + "  return x;\n}\n")
        with open(os.path.join(tmp, "engine", "big.h"), "w") as f:
            f.write("// filler\n" * 401)
        with open(os.path.join(tmp, "contracts", "family.cpp"), "w") as f:
            f.write("void register_family(int& x) {\n" + body(160) + "}\n")
        with open(os.devnull, "w") as null:
            over = report(tmp, null)
    want = ["engine/big.h: 401 lines (file)", "engine/long.cpp:1: long_function, 82 lines"]
    if over != want:
        print("FAIL: the planted pieces were not found exactly:\n  " + "\n  ".join(over))
        return 1
    print("ok: a 401-line file and an 82-line function fail the check; an 80-line one and a data table do not")
    return 0


if __name__ == "__main__":
    sys.exit(structure_check.main(sys.argv, __doc__, report, self_test, "piece(s) over the limits"))
