#!/usr/bin/python3
"""The README's adapter table, generated from what each built adapter
declares (`kconform list --backend plugin:PATH --json`): its library and
version, its kernels grouped by the dtypes it implements them for, and its
claims. Usage:
  scripts/adapter_table.py KCONFORM ADAPTERS_TXT            print the table
  scripts/adapter_table.py KCONFORM ADAPTERS_TXT --write README.md
      replace the table between the README's adapter-table markers
  scripts/adapter_table.py KCONFORM ADAPTERS_TXT --check README.md
      exit 1 where a built adapter's row differs from the README's
Adapters not built on this machine keep their README row (they cannot be
asked); --check names them."""
import json
import subprocess
import sys

BEGIN, END = "<!-- adapter-table:begin (scripts/adapter_table.py) -->", "<!-- adapter-table:end -->"
HEAD = "| adapter | library | kernels (dtypes) | claims |\n|---|---|---|---|"


def row(kc, name, path):
    d = json.loads(subprocess.run([kc, "list", "--backend", "plugin:" + path, "--json"], check=True,
                                  capture_output=True, text=True).stdout)
    lib = d["library"] or {}
    groups = {}
    for k in d["kernels"]:
        groups.setdefault(" ".join(k["dtypes"]), []).append(k["kernel"])
    kernels = "; ".join(f"{' '.join(ks)} ({dts})" for dts, ks in groups.items())
    claims = {}
    for k in d["kernels"]:
        for c in k["claims"]:
            claims.setdefault(f"{c['metric']} <= {c['bound']:g}", []).append(f"{k['kernel']} {c['dtype']}")
    claim_text = "; ".join(f"{m}: {len(ks)} kernel x dtype" + ("s" if len(ks) > 1 else "") for m, ks in claims.items()) or "none"
    version = lib.get("version", "").split("; not implemented")[0]  # (libtorch lists its refusals there)
    return f"| `{name}` | {lib.get('name', '?')} {version} | {kernels} | {claim_text} |"


def built(adapters_txt):
    out = []
    for line in open(adapters_txt):
        name, _, rest = line.strip().partition(": ")
        if rest and not rest.startswith("not built"):
            out.append((name, rest))
    return out


def main():
    kc, adapters_txt = sys.argv[1], sys.argv[2]
    rows = {name: row(kc, name, path) for name, path in built(adapters_txt)}
    if len(sys.argv) == 3:
        print(HEAD)
        print("\n".join(rows.values()))
        return 0
    mode, readme = sys.argv[3], sys.argv[4]
    text = open(readme).read()
    if BEGIN not in text or END not in text:
        print(f"{readme}: no adapter-table markers")
        return 1
    before, rest = text.split(BEGIN, 1)
    old_table, after = rest.split(END, 1)
    old_rows = {}
    for line in old_table.strip().splitlines()[2:]:
        name = line.split("|")[1].strip().strip("`")
        old_rows[name] = line
    merged = dict(old_rows)
    merged.update(rows)
    if mode == "--write":
        open(readme, "w").write(before + BEGIN + "\n" + HEAD + "\n" + "\n".join(merged.values()) + "\n" + END + after)
        return 0
    bad = [n for n in rows if old_rows.get(n) != rows[n]]
    for n in bad:
        print(f"README's row for {n} differs from what it declares:\n  README: {old_rows.get(n)}\n  built:  {rows[n]}")
    missing = [n for n in old_rows if n not in rows]
    if missing:
        print("not built here (rows not checked):", ", ".join(missing))
    if bad:
        print("run: scripts/adapter_table.py KCONFORM ADAPTERS_TXT --write README.md")
    return 1 if bad else 0


sys.exit(main())
