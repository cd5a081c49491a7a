#!/usr/bin/env bash
# `kconform fkc audit` and `fkc export` on the reference backend's FKC files
# (../shared/fkc/reference, read in place): every block read; an export
# that changes nothing but the measured kernels' precision blocks and whose
# claims an audit against the same run confirms; a planted defect refuted
# with a replay that reproduces it; unreadable files named with their line.
# Usage: fkc_cli_test.sh KCONFORM FKC_DIR
set -u
kc="$1"
fkc_dir="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"
files=("$fkc_dir"/*.fkc.md)
[ ${#files[@]} -ge 10 ] || { echo "FAIL: expected the reference FKC files in $fkc_dir"; exit 1; }
"$kc" run --cases 5 --no-exhaustive --quiet --out "$work/run" >/dev/null

# The audit: rc 0 or 1 (refuted claims are findings, not errors), and every
# claim of every graded kernel x dtype accounted for.
"$kc" fkc audit "${files[@]}" --results "$work/run/results.json" --json "$work/audit.json" >"$work/audit.txt"
rc=$?
[ $rc -le 1 ] || { echo "FAIL: audit exit $rc"; cat "$work/audit.txt"; fails=$((fails + 1)); }
python3 - "$work/audit.json" "$work/run/results.json" "${files[@]}" <<'PY' || fails=$((fails + 1))
import json, re, sys
a = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
blocks = sum(len(re.findall(r"^```fkc\s*$", open(f).read(), re.M)) for f in sys.argv[3:])
t = a["totals"]
ok = t["kernels"] == blocks == len(a["kernels"])
graded = {k["name"]: {x["dtype"] for x in k["results"]} for k in r["kernels"]}
pairs = sum(len(set(k["dtypes_graded"])) for k in a["kernels"])
ok &= t["confirmed"] + t["refuted"] + t["unclaimed"] + t["not_measured"] == 4 * pairs
ok &= all(set(k["dtypes_graded"]) <= graded.get(k["kernel"], set()) for k in a["kernels"])
# Every graded kernel the files contract is audited (kconform's own names,
# such as the mixed-precision arm matmul_f32_bf16, the executor's reshape arms, fused_linear and qmatmul (FKC's
# eval_qmatmul), have no FKC block of that name). dequantize_blocks has one, whose weight is U8 bytes: kconform
# grades the u32 words the executor takes, so no FKC dtype of it is graded.
listed = {k["kernel"] for k in a["kernels"]}
ok &= {k["kernel"] for k in a["kernels"] if k["dtypes_graded"]} == (set(graded) & listed) - {"dequantize_blocks"}
ok &= set(graded) - listed == {"matmul_f32_bf16", "contiguize", "squeeze", "unsqueeze", "fused_linear", "qmatmul"}
for k in a["kernels"]:
    for c in k["claims"]:
        if c["verdict"] == "refuted" and "at" not in c and c["claim"] != "bit_stable_on_same_hardware":
            print("FAIL: refuted without its input:", k["kernel"], c); ok = False
print("audit:", t) if ok else print("FAIL: audit totals", t, blocks, pairs)
sys.exit(0 if ok else 1)
PY

# The export, and the same run auditing it: nothing refuted.
expect 0 "export" -- "$kc" fkc export "${files[@]}" --results "$work/run/results.json" --out "$work/exported"
# Measured: the blocks of every kernel the run graded; kept: the others.
counts=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); m=sum(1 for k in a["kernels"] if k["dtypes_graded"]); print(m, a["totals"]["kernels"] - m)' "$work/audit.json")
read -r n_measured n_kept <<<"$counts"
grep -q "$n_measured precision blocks measured, $n_kept kept" "$work/out" || { echo "FAIL: export counts (want $n_measured measured, $n_kept kept)"; cat "$work/out"; fails=$((fails + 1)); }
expect 0 "audit of the exported files against the same run" -- "$kc" fkc audit "$work/exported"/*.fkc.md --results "$work/run/results.json"
grep -q " 0 refuted" "$work/out" || { echo "FAIL: the exported claims are not all confirmed"; fails=$((fails + 1)); }
python3 - "$work/exported" "$n_measured" "${files[@]}" <<'PY' || fails=$((fails + 1))
# Every byte outside the precision blocks unchanged; the measured blocks marked audited by kconform.
import os, re, sys
out, want_measured = sys.argv[1], int(sys.argv[2])
def split(text):
    # (text with each precision block cut out, the blocks)
    rest, blocks, lines, i = [], [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("precision:"):
            j = i + 1
            last = i
            while j < len(lines) and not (lines[j].strip() and not lines[j][0].isspace()) and not lines[j].startswith("```"):
                if lines[j].strip(): last = j
                j += 1
            blocks.append("\n".join(lines[i:last + 1])); rest.append("<precision>"); i = last + 1
        else:
            rest.append(lines[i]); i += 1
    return "\n".join(rest), blocks
ok, measured = True, 0
for f in sys.argv[3:]:
    a, ab = split(open(f, encoding="utf-8").read())
    b, bb = split(open(os.path.join(out, os.path.basename(f)), encoding="utf-8").read())
    if a != b: print("FAIL: bytes outside the precision blocks changed in", f); ok = False
    measured += sum(1 for x in bb if "measured by kconform" in x and "audited: true" in x)
if measured != want_measured: print("FAIL: measured blocks", measured, "of", want_measured); ok = False
sys.exit(0 if ok else 1)
PY

# A planted defect: exp f32 two ulps high on [1, 2) refutes the claim of
# at most 1 ulp, citing an input whose replay shows the distance.
"$kc" run --backend mutant:exp_f32_2ulp --kernel exp --dtype f32 --cases 20 --no-exhaustive --quiet --out "$work/mutant" >/dev/null
expect 1 "audit of a defective exp" -- "$kc" fkc audit "$fkc_dir/elementwise.fkc.md" --results "$work/mutant/results.json"
line=$(grep "^REFUTED .* exp f32 max_ulp: claimed 1, measured 2 at x = " "$work/out")
[ -n "$line" ] || { echo "FAIL: exp f32's max_ulp is not refuted"; cat "$work/out"; fails=$((fails + 1)); }
replay=${line##*replay: }
case "$replay" in kconform\ run*) ;; *) echo "FAIL: no replay in: $line"; fails=$((fails + 1)); replay="kconform run --version" ;; esac
"$kc" ${replay#kconform } >"$work/replay.txt" 2>&1
grep -q "2 (integer distance)" "$work/replay.txt" || { echo "FAIL: the replay does not reproduce: $replay"; cat "$work/replay.txt"; fails=$((fails + 1)); }

# Unreadable input: exit 2 with the file and line; a folder kconform did not write is refused.
printf '# t\n\n```fkc\nkernel: exp\nprecision:\n  max_ulp: 1.5\n```\n' >"$work/bad.fkc.md"
expect 2 "a malformed max_ulp" -- "$kc" fkc audit "$work/bad.fkc.md" --results "$work/run/results.json"
grep -q "bad.fkc.md:6: precision.max_ulp must be an integer" "$work/out" || { echo "FAIL: no file:line"; cat "$work/out"; fails=$((fails + 1)); }
printf '```fkc\nkernel: exp\n' >"$work/open.fkc.md"
expect 2 "an unclosed block" -- "$kc" fkc audit "$work/open.fkc.md" --results "$work/run/results.json"
grep -q "open.fkc.md:1: the \`\`\`fkc block opened here is never closed" "$work/out" || { echo "FAIL: unclosed"; fails=$((fails + 1)); }
expect 2 "a missing file" -- "$kc" fkc audit "$work/none.fkc.md" --results "$work/run/results.json"
mkdir "$work/mine" && echo keep >"$work/mine/notes.txt"
expect 2 "export into a folder kconform did not write" -- "$kc" fkc export "${files[@]}" --results "$work/run/results.json" --out "$work/mine"
[ -f "$work/mine/notes.txt" ] || { echo "FAIL: the refused folder was touched"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "fkc cli: all passed"
exit $((fails > 0))
