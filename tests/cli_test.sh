#!/usr/bin/env bash
# End-to-end checks of the kconform executable: exit codes (0 pass, 1
# contract failures, 2 usage or input error), that a printed replay command
# reproduces its failure, and the independent MPFR check of a published figure.
set -u
kc="$1"
independent="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"

expect 0 "help"                      -- "$kc" --help
expect 0 "run --help"                -- "$kc" run --help
expect 0 "list"                      -- "$kc" list
expect 0 "list --json"               -- "$kc" list --json
expect 0 "list --backends"           -- "$kc" list --backends
# `list` shows each dtype's bound, not only its kind; `list --backends --json` is JSON.
"$kc" list >"$work/list" 2>&1
grep -q "f32: <= 2.5 ulp, distance <= 1" "$work/list" && grep -q "f64: correctly rounded" "$work/list" &&
  grep -q "normalized error <= 1 (K = " "$work/list" && echo "ok:   list shows the bounds" ||
  { echo "FAIL: list does not show the bounds"; fails=$((fails + 1)); }
"$kc" list --backends --json >"$work/backends.json" 2>&1
python3 - "$work/backends.json" <<'PY' && echo "ok:   list --backends --json is JSON naming every backend" || { echo "FAIL: list --backends --json"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
names = [b["name"] for b in j]
assert names[0] == "reference" and "mutant:exp_f32_2ulp" in names, names
assert all(b["kernels"] and b["expected_check"] for b in j[1:])
PY
expect 2 "unknown subcommand"        -- "$kc" frobnicate
expect 2 "unknown kernel"            -- "$kc" run --kernel nope
expect 2 "unknown dtype"             -- "$kc" run --kernel exp --dtype f8
expect 2 "unknown profile"           -- "$kc" run --kernel exp --profile strict
# Non-finite figures in results.json (reports/json_number.h): every figure a
# number or null; a null one flagged in its object's "nonfinite" member; the
# report reads them back and shows them as inf.
expect 1 "exp f32 saturating mutant" -- "$kc" run --kernel exp --dtype f32 --cases 20 --backend mutant:exp_overflow_finite --out "$work/nonfinite"
python3 - "$work/nonfinite/results.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
acc = d["kernels"][0]["results"][0]["accuracy"]
figures = ["max_frac_ulp", "mean_frac_ulp", "p99_frac_ulp", "max_absolute", "max_relative"]
bad = [k for k in figures if not (acc[k] is None or isinstance(acc[k], (int, float)))]
if bad or acc["max_frac_ulp"] is not None or acc.get("nonfinite", {}).get("max_frac_ulp") != "inf":
    print("FAIL: non-finite figures not null and flagged:", bad, acc["max_frac_ulp"], acc.get("nonfinite")); sys.exit(1)
print("ok:   results.json: max_frac_ulp null, flagged inf")
PY
expect 0 "report reads the flags back" -- "$kc" report "$work/nonfinite/results.json" --out "$work/nonfinite-site"
grep -q 'data-v="Infinity"' "$work/nonfinite-site/index.html" && ! grep -rq "nonfinite:" "$work/nonfinite-site" || { echo "FAIL: the site does not show the flagged figure as inf"; fails=$((fails + 1)); }

# The whole failing case (issue 37, item 6): --save-case writes every
# operand, the parameters and both backends' outputs as .npy files with a
# manifest; --load-case grades it again (and replays as itself); every
# operand's shape is in the failure text.
expect 1 "matmul mutant case 0, saved" -- "$kc" run --kernel matmul --dtype f32 --backend mutant:matmul_drops_last_k --cases 5 --case 0 --save-case "$work/case3"
grep -q "input shapes a \[.*\], b \[" "$work/out" || { echo "FAIL: the failure text lacks b's shape"; fails=$((fails + 1)); }
python3 - "$work/case3" <<'PY' || fails=$((fails + 1))
import json, os, struct, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "case.json")))
def npy(path):  # a reader of NumPy's format 1.0, without NumPy
    b = open(path, "rb").read()
    assert b[:8] == b"\x93NUMPY\x01\x00", path
    n = struct.unpack("<H", b[8:10])[0]
    h = eval(b[10:10 + n].decode("latin1"))
    count = 1
    for s in h["shape"]: count *= s
    assert h["descr"] == "<f4" and not h["fortran_order"], h
    return h["shape"], struct.unpack("<%df" % count, b[10 + n:])
assert m["format"] == "kconform-case/1" and m["kernel"] == "matmul" and m["case"] == 0, m
shapes = [tuple(e["shape"]) for e in m["inputs"]]
for e in m["inputs"] + m["outputs"] + m["reference_outputs"]:
    shape, values = npy(os.path.join(d, e["file"]))
    assert tuple(shape) == tuple(e["shape"]), (e, shape)
(a, b), (y,) = shapes, [tuple(e["shape"]) for e in m["outputs"]]
assert y == a[:-1] + b[-1:], (a, b, y)
_, out = npy(os.path.join(d, m["outputs"][0]["file"])); _, ref = npy(os.path.join(d, m["reference_outputs"][0]["file"]))
assert out != ref, "the mutant's outputs equal the reference's"
print("ok:   saved case: %d inputs, shapes %s, outputs and the reference's" % (len(shapes), shapes))
PY
expect 1 "the saved case graded again fails" -- "$kc" run --load-case "$work/case3" --backend mutant:matmul_drops_last_k
grep -q "replay: *kconform run --load-case $work/case3 --backend mutant:matmul_drops_last_k" "$work/out" || { echo "FAIL: a loaded case's replay is not itself"; fails=$((fails + 1)); }
expect 0 "the saved case on the reference passes" -- "$kc" run --load-case "$work/case3"
expect 2 "--save-case without --case" -- "$kc" run --kernel matmul --dtype f32 --save-case "$work/nocase"
expect 2 "--load-case of a folder without a case" -- "$kc" run --load-case "$work"

# kconform list KERNEL: one contract in full, with what the plug-in ABI returns per rule.
expect 0 "list matmul" -- "$kc" list matmul
for want in "a  *f32, f64, bf16, f16  *rank 2..6" "inner.mismatch  *b  *kc_error.rule = \"inner.mismatch\"" \
            "dtype.mismatch  *b  *KC_ERR_DTYPE_MISMATCH" "f32  *reference: normalized error <= 1" "batch.empty .*the reference's limit"; do
  grep -q "$want" "$work/out" || { echo "FAIL: list matmul lacks: $want"; fails=$((fails + 1)); }
done
expect 0 "list exp: bounds per tier" -- "$kc" list exp
grep -q "opencl-full-profile: <= 3 ulp" "$work/out" && grep -q "cuda-programming-guide: <= 2.5 ulp, distance <= 2" "$work/out" || { echo "FAIL: list exp lacks the tiers' bounds"; fails=$((fails + 1)); }
expect 2 "list of an unknown kernel" -- "$kc" list expp

# Accuracy tiers (docs/accuracy-tiers.md): a bad name or tier file is exit 2
# naming it (and the line); a tier's bound grades, the summary names it, and
# a replay repeats --accuracy.
expect 2 "unknown accuracy tier"     -- "$kc" run --kernel exp --accuracy strict
grep -q "built-in tier (correctly-rounded, cuda-programming-guide, opencl-full-profile)" "$work/out" || { echo "FAIL: tier names not listed"; fails=$((fails + 1)); }
printf 'name: t\nsource: s\nexp f32 frac_ulp 3\nexp f8 frac_ulp 1\n' > "$work/bad.tier"
expect 2 "tier file with a bad dtype" -- "$kc" run --kernel exp --accuracy "$work/bad.tier"
grep -q "tier file $work/bad.tier, line 4: kernel 'exp' does not take 'f8'" "$work/out" || { echo "FAIL: tier error without file and line"; cat "$work/out"; fails=$((fails + 1)); }
expect 0 "exp f32 under the OpenCL tier" -- "$kc" run --kernel exp --dtype f32 --cases 5 --accuracy opencl-full-profile
grep -q "accuracy tier opencl-full-profile: <= 3 ulp" "$work/out" || { echo "FAIL: the summary does not name the tier"; cat "$work/out"; fails=$((fails + 1)); }
expect 1 "a 2-ulp mutant under the correctly rounded tier" -- "$kc" run --kernel exp --dtype f32 --cases 5 --backend mutant:exp_f32_2ulp --accuracy correctly-rounded
grep -q -- "--accuracy correctly-rounded" "$work/out" || { echo "FAIL: the replay does not repeat --accuracy"; cat "$work/out"; fails=$((fails + 1)); }
# Profiles: a pairwise sum_all is correct. A backend other than the reference
# is graded in the conformance profile by default, which passes it and lists
# where it differs; the reference profile fails it on the semantics replay,
# and its printed replay names the profile.
expect 0 "pairwise sum: conformance profile by default" -- "$kc" run --kernel sum_all --dtype f32 --backend mutant:sum_all_pairwise
grep -q "^PASS sum_all .*differs from the reference: [0-9]* semantics" "$work/out" || { echo "FAIL: the differences are not counted on the PASS line"; fails=$((fails + 1)); }
expect 1 "pairwise sum: reference profile" -- "$kc" run --kernel sum_all --dtype f32 --backend mutant:sum_all_pairwise --profile reference
grep -q "^FAIL sum_all .*semantics" "$work/out" || { echo "FAIL: the reference profile does not name the semantics check"; fails=$((fails + 1)); }
grep -q "replay: .*--backend mutant:sum_all_pairwise --profile reference --seed 1 --case" "$work/out" || { echo "FAIL: the replay does not name the profile"; fails=$((fails + 1)); }
expect 1 "the reference backend in the reference profile, a flawed kernel in conformance" -- "$kc" run --kernel exp --dtype f32 --backend mutant:exp_f32_2ulp
expect 2 "dtype the kernel rejects"  -- "$kc" run --kernel exp --dtype u32
expect 2 "unknown backend"           -- "$kc" run --kernel exp --backend mutant:nope
expect 2 "bad --input"               -- "$kc" run --kernel exp --dtype f32 --input zz
expect 2 "--shrink without --case"   -- "$kc" run --kernel exp --dtype f32 --shrink 1
expect 0 "reference exp f32 passes"  -- "$kc" run --kernel exp --dtype f32 --cases 20
expect 1 "a mutant fails"            -- "$kc" run --kernel exp --dtype f32 --backend mutant:exp_f32_2ulp
# The FAIL line names the failing check, its figure against the bound, and the count.
grep -Eq "^FAIL exp +f32 +accuracy: integer distance 2 > 1 on [0-9]+ elements" "$work/out" &&
  echo "ok:   the FAIL line names the check, the figure and the count" ||
  { echo "FAIL: the FAIL line: $(grep '^FAIL' "$work/out")"; fails=$((fails + 1)); }

# The first replay command a failure prints reproduces it: a failing
# element replays with its case (nothing is re-run to learn whether it
# fails alone), its element alone offered beside it; the shrunk case's
# report replays the shrunk case.
"$kc" run --kernel exp --dtype f32 --backend mutant:exp_f32_2ulp >"$work/mut" 2>&1
replay=$(grep -m1 '^  replay: ' "$work/mut" | sed 's/^  replay: *//')
case "$replay" in
  "kconform run "*"--case "*) expect 1 "printed case replay reproduces: $replay" -- "$kc" ${replay#kconform } ;;
  *) echo "FAIL: no case replay printed: $replay"; fails=$((fails + 1)) ;;
esac
alone=$(grep -m1 '^  the element alone: ' "$work/mut" | sed 's/^  the element alone: *//')
case "$alone" in
  "kconform run "*"--input "*) expect 1 "the element alone (this mutant fails alone too)" -- "$kc" ${alone#kconform } ;;
  *) echo "FAIL: the element alone is not offered"; fails=$((fails + 1)) ;;
esac
shrunk=$(grep -A 8 '^(shrunk to ' "$work/mut" | grep -m1 '^  replay: ' | sed 's/^  replay: *//')
case "$shrunk" in
  "kconform run "*"--shrink "*) expect 1 "printed shrunk-case replay reproduces" -- "$kc" ${shrunk#kconform } ;;
  *) echo "FAIL: no shrunk case printed"; fails=$((fails + 1)) ;;
esac
expect 0 "replaying one passing case" -- "$kc" run --kernel exp --dtype f32 --case 3

# Same seed, same results.
"$kc" run --kernel sin --dtype f64 --cases 10 --out "$work/a" >/dev/null
"$kc" run --kernel sin --dtype f64 --cases 10 --out "$work/b" >/dev/null
if python3 - "$work/a/results.json" "$work/b/results.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda d: [(r["dtype"], r["elements"], r["accuracy"]["max_frac_ulp"], r["worst"][0]["input_hex"])
                   for k in d["kernels"] for r in k["results"]]
sys.exit(0 if strip(a) == strip(b) else 1)
PY
then echo "ok:   same seed gives the same results"; else echo "FAIL: same seed, different results"; fails=$((fails + 1)); fi

# No noise: each failure is printed once (by check and input bits), each
# with its replay once.
for m in exp_f32_2ulp:exp sum_bf16_truncating:sum_dim add_f16_ftz:add sum_drops_last:sum_all; do
  "$kc" run --kernel "${m#*:}" --backend "mutant:${m%%:*}" >"$work/noise" 2>&1
  if python3 - "$work/noise" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
seen, bad = set(), 0
for block in re.split(r"\n(?=\S)", text):
    lines = block.splitlines()
    head = re.sub(r"^\(shrunk to \d+ input elements?\) ", "", lines[0])
    inputs = [l for l in lines if l.lstrip().startswith("input:")]
    if inputs:
        key = (head.split(": ")[1] if ": " in head else head, lines[0].split()[1], inputs[0])
        if key in seen: print("printed twice:", key); bad += 1
        seen.add(key)
    # Distinct failures of one case share its replay; one failure prints each replay once.
    replays = [l.split(":", 1)[1].strip() for l in lines if l.lstrip().startswith(("replay:", "shrunk case:"))]
    for r in {r for r in replays if replays.count(r) > 1}: print("replay printed twice in one failure:", r); bad += 1
sys.exit(1 if bad or not seen else 0)
PY
  then echo "ok:   mutant:${m%%:*}: each failure and each replay printed once"
  else echo "FAIL: mutant:${m%%:*}: duplicates printed"; fails=$((fails + 1)); fi
done

# Progress: lines on a piped stderr at the --progress interval, a live line
# redrawn in place on a terminal, nothing with --quiet; stdout keeps only
# the results.
progress_check() {  # description, then a condition on $work/err and $work/stdout
  if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; sed 's/^/    /' "$work/err" | head -5; fails=$((fails + 1)); fi
}
"$kc" run --family unary --dtype f32 --progress 0.2 >"$work/stdout" 2>"$work/err"
progress_check "piped: progress lines on stderr" \
  '[ "$(grep -c "^progress: \[[0-9]*/[0-9]* kernel x dtype\] .* elements, .* failing, .* elapsed, " "$work/err")" -ge 2 ]'
progress_check "piped: no progress on stdout" '! grep -q "progress:" "$work/stdout"'
"$kc" run --family unary --dtype f32 --progress 0.2 --quiet >"$work/stdout" 2>"$work/err"
progress_check "--quiet: no progress" '[ ! -s "$work/err" ]'
"$kc" run --family unary --dtype f32 --progress 0 >"$work/stdout" 2>"$work/err"
progress_check "--progress 0: none when piped" '[ ! -s "$work/err" ]'
script -qec "$kc run --family unary --dtype f32" /dev/null >"$work/err" 2>&1
progress_check "terminal: a live line redrawn in place, erased before each result line" \
  'python3 -c "import re,sys; d=b\"\\n\"+open(sys.argv[1],\"rb\").read(); sys.exit(0 if re.search(rb\"\\r\\x1b\\[K\\[[0-9]+/[0-9]+ kernel x dtype\\]\", d) and not re.search(rb\"(?<!\\n)(?<!\\x1b\\[K)PASS \", d) else 1)" "$work/err"'

# --dump with --case: every element of that case, the failing ones and those
# with no finite ulp figure included (issue 37: it wrote an empty file for a
# failing matmul case), and none of the shrinker's regrades.
"$kc" run --kernel matmul --dtype f32 --backend mutant:matmul_drops_last_k --seed 1 --case 0 --quiet \
  --dump "$work/case0.txt" --save-case "$work/case0" >/dev/null 2>&1
if /usr/bin/python3 - "$work/case0.txt" "$work/case0/case.json" <<'PY'
import json, math, sys
lines = [l.split() for l in open(sys.argv[1])]
shape = json.load(open(sys.argv[2]))["outputs"][0]["shape"]
n = math.prod(shape)
assert all(len(l) == 8 and l[2] == "0" for l in lines), "a line of another case or format"
assert sorted(int(l[3]) for l in lines) == list(range(n)), f"{len(lines)} lines for {n} elements"
kinds = {(l[6], l[7]) for l in lines}
assert ("nonfinite", "fail") in kinds and ("accuracy", "fail") in kinds, kinds
PY
then echo "ok:   --dump --case: every element of the failing case, once"
else echo "FAIL: --dump --case"; fails=$((fails + 1)); fi

# Published max fractional ulp of f32 exp == an independent MPFR computation.
"$kc" run --kernel exp --dtype f32 --out "$work/exp" --dump "$work/elements.txt" >/dev/null
expect 0 "independent MPFR check of exp f32's max ulp" -- "$independent" "$work/exp/results.json" "$work/elements.txt"
cat "$work/out"

echo "$fails failed"
[ "$fails" -eq 0 ]
