#!/usr/bin/env bash
# `kconform exhaustive`: the fast path and MPFR (--exact-oracle) give the
# same document on the same inputs, every figure to the last bit; a sweep
# killed with SIGKILL and restarted with the same arguments ends with the
# document of an uninterrupted one; a mutant is caught and its printed replay reproduces
# it; bad arguments are exit 2. SLICE_LOG2 (default 20; nightly 24) sets
# the size of the fast-versus-MPFR slice.
set -u
kc="$1"
slice_log2="${2:-20}"
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$here/expect.sh"

# 1. Fast path against MPFR on 2^slice_log2 inputs: around 1.0 (both
# sides of a binade), and up to 2^-24 (e^x = 1 + x: errors that grow along
# the input, every block a new maximum, so the lane's candidates are set
# aside and decided per stretch: engine/case_run.cpp).
half=$(( 1 << (slice_log2 - 1) ))
for around in 0x3f800000 0x33800000; do
lo=$(( around - half )); hi=$(( around + half ))
expect 0 "exp f32 over 2^$slice_log2 inputs around $around, fast path" -- "$kc" exhaustive -k exp -d f32 --range "$lo:$hi" --block 18 --out "$work/fast$around" -q
expect 0 "the same inputs with MPFR for every element" -- "$kc" exhaustive -k exp -d f32 --range "$lo:$hi" --block 18 --out "$work/exact$around" --exact-oracle -q
if python3 "$here/same_results.py" "$work/fast$around/results/results.json" "$work/exact$around/results/results.json" >"$work/diff" 2>&1; then
  echo "ok:   the same document, every figure to the last bit (the means, p99 and profile on the 2^-16 grid: engine/figure_grid.h)"
else
  echo "FAIL: the fast path and MPFR disagree:"; cat "$work/diff"; fails=$((fails + 1))
fi
python3 - "$work/fast$around/results/results.json" <<'PY' || { echo "FAIL: the slice graded too little"; fails=$((fails + 1)); }
import json, sys
a = json.load(open(sys.argv[1]))["kernels"][0]["results"][0]
assert a["exhaustive"] is True and len(a["worst"]) == 5, a["exhaustive"]
print("     max", a["accuracy"]["max_frac_ulp"], "ulp at", a["worst"][0]["input_hex"], "over", a["elements"], "inputs")
PY
done

# 2. SIGKILL and resume: the final document is the uninterrupted one.
range="0x40000000:0x40400000"   # 2^22 inputs, 16 blocks of 2^18
expect 0 "an uninterrupted sweep" -- "$kc" exhaustive -k sin -d f32 --range "$range" --block 18 --out "$work/whole" -q -j 2
"$kc" exhaustive -k sin -d f32 --range "$range" --block 18 --out "$work/killed" -q -j 2 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  n=$(ls "$work/killed/blocks" 2>/dev/null | grep -c 'json$')
  [ "$n" -ge 3 ] && break
  sleep 0.05
done
kill -KILL "$pid"; wait "$pid" 2>/dev/null
kept=$(ls "$work/killed/blocks" | grep -c 'json$')
[ "$kept" -ge 1 ] && [ "$kept" -lt 16 ] && echo "ok:   killed with $kept of 16 blocks kept" ||
  { echo "FAIL: the kill left $kept blocks (wanted some, not all)"; fails=$((fails + 1)); }
"$kc" exhaustive -k sin -d f32 --range "$range" --block 18 --out "$work/killed" -j 2 >"$work/resume.log" 2>&1
grep -q "$kept already graded" "$work/resume.log" && echo "ok:   the restart grades only the missing blocks" ||
  { echo "FAIL: the restart did not resume:"; head -3 "$work/resume.log"; fails=$((fails + 1)); }
if python3 "$here/same_results.py" "$work/whole/results/results.json" "$work/killed/results/results.json" >"$work/diff" 2>&1; then
  echo "ok:   the resumed sweep's document is the uninterrupted one (nothing lost or counted twice)"
else
  echo "FAIL: resumed != uninterrupted:"; cat "$work/diff"; fails=$((fails + 1))
fi

# 3. A mutant two ulps high on [1, 2): caught, and its replay reproduces it.
expect 1 "mutant exp_f32_2ulp is caught by a sweep of [1, 1 + 2^-7)" -- \
  "$kc" exhaustive -k exp -d f32 --backend mutant:exp_f32_2ulp --range 0x3f800000:0x3f810000 --block 16 --out "$work/mut" -q
replay=$(grep -m1 -o 'kconform run [^`]*--input 0x[0-9a-f]*' "$work/out")
if [ -n "$replay" ]; then
  expect 1 "its printed replay fails the same way" -- $kc ${replay#kconform }
  grep -q "FAIL" "$work/out" && echo "ok:   the replay prints FAIL" || { echo "FAIL: replay output"; fails=$((fails + 1)); }
else
  echo "FAIL: no element replay printed"; fails=$((fails + 1))
fi

# 4. Bad arguments.
expect 2 "a kernel with two inputs" -- "$kc" exhaustive -k add -d f32 --out "$work/x"
expect 2 "f64 without --range" -- "$kc" exhaustive -k exp -d f64 --out "$work/x"
expect 2 "a range past the dtype" -- "$kc" exhaustive -k exp -d bf16 --range 0:0x20000 --out "$work/x"
expect 2 "LO >= HI" -- "$kc" exhaustive -k exp -d f32 --range 5:5 --out "$work/x"
expect 2 "another sweep's folder" -- "$kc" exhaustive -k cos -d f32 --range "$range" --block 18 --out "$work/whole"
grep -q "holds another sweep" "$work/out" && echo "ok:   ... says the folder holds another sweep" || { echo "FAIL: message"; fails=$((fails + 1)); }
expect 0 "every bf16 input of tanh" -- "$kc" exhaustive -k tanh -d bf16 --out "$work/bf16" -q
[ -f "$work/bf16/results/site/index.html" ] && echo "ok:   the sweep's site is written" || { echo "FAIL: no site"; fails=$((fails + 1)); }

# 5. The worst-case search: a mutant found and replayed, the reference within its contract.
expect 1 "search finds mutant tanh_f32_edge_window" -- "$kc" search --backend mutant:tanh_f32_edge_window -k tanh -d f32 -n 20000
replay=$(grep -m1 -o 'kconform run [^`]*--input 0x[0-9a-f]*' "$work/out")
[ -n "$replay" ] && expect 1 "the search's printed replay fails the same way" -- $kc ${replay#kconform } ||
  { echo "FAIL: no replay printed by search"; fails=$((fails + 1)); }
expect 0 "search on the reference's exp and sin (f32, bf16)" -- "$kc" search -k exp -k sin -d f32 -d bf16 -n 4000 --json "$work/search.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==4 and all(not r['failed'] and r['evaluations']==4000 for r in d)" "$work/search.json" &&
  echo "ok:   the search's JSON holds each worst case" || { echo "FAIL: search JSON"; fails=$((fails + 1)); }
expect 2 "search of a binary kernel" -- "$kc" search -k add

[ "$fails" -eq 0 ] && echo "all exhaustive checks pass" || echo "$fails failure(s)"
[ "$fails" -eq 0 ]
