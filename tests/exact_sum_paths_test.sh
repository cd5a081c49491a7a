#!/usr/bin/env bash
# KC_EXACT_SUM_PATH forces the exact sums' path for a whole run
# (oracles/exact_sum.h): on each path this CPU has (eight lanes, four,
# scalar) the run writes the same document as the default path, and each
# result equals the committed digest of the default run; an unknown name,
# or a path the CPU lacks, is exit 2 with the reason. `short` (the default
# ctest) runs the kernels whose oracle is the dot product, the one that
# makes bulk exact-sum calls (the conformance tests rerun every result
# that made one, found by ExactSum::bulk_calls, on each path in-process);
# `full` (nightly) the whole default run.
# Usage: exact_sum_paths_test.sh KCONFORM KC_RESULTS_DIGEST SOURCE_DIR [short|full]
set -u
kc="$1"
digest_tool="$2"
src="$3"
mode="${4:-short}"
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$here/expect.sh"

# 1. Names that are not a path, and a path this CPU lacks.
KC_EXACT_SUM_PATH=extract16 expect 2 "KC_EXACT_SUM_PATH=extract16 is refused" -- "$kc" list
grep -q "KC_EXACT_SUM_PATH=extract16 is not a path of the exact sums (extract8, extract4 or scalar)" "$work/out" &&
  echo "ok:   ... naming the variable and the paths" || { echo "FAIL: message:"; cat "$work/out"; fails=$((fails + 1)); }
KC_EXACT_SUM_PATH=Scalar expect 2 "names are exact (Scalar is refused)" -- "$kc" list
paths=(scalar)
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { [[ " $flags " == *" $1 "* ]]; }
if has avx2 && has fma; then paths+=(extract4); else
  KC_EXACT_SUM_PATH=extract4 expect 2 "extract4 on a CPU without AVX2 and FMA is refused" -- "$kc" list
fi
if has avx512f && has avx512dq && has avx2 && has fma; then paths+=(extract8); else
  KC_EXACT_SUM_PATH=extract8 expect 2 "extract8 on a CPU without AVX-512 is refused" -- "$kc" list
  grep -q "has no such path" "$work/out" && echo "ok:   ... saying the CPU has no such path" ||
    { echo "FAIL: message:"; cat "$work/out"; fails=$((fails + 1)); }
fi
echo "     paths this CPU has: ${paths[*]}"

# 2. The same document on every path.
if [ "$mode" = full ]; then
  run_args=(run -q)
else
  run_args=(run -q --kernel matmul --kernel matmul_2d --kernel matmul_f32_bf16 --kernel fused_linear --kernel qmatmul
            --kernel conv2d --kernel conv_transpose2d --kernel conv2d_simple --kernel rope)
fi
expect 0 "the default path (unset)" -- "$kc" "${run_args[@]}" --out "$work/default"
for p in "${paths[@]}"; do
  KC_EXACT_SUM_PATH=$p expect 0 "KC_EXACT_SUM_PATH=$p" -- "$kc" "${run_args[@]}" --out "$work/$p"
  if python3 "$here/same_results.py" "$work/default/results.json" "$work/$p/results.json" >"$work/diff" 2>&1; then
    echo "ok:   $p writes the default path's document"
  else
    echo "FAIL: $p differs from the default path:"; cat "$work/diff"; fails=$((fails + 1))
  fi
done

# 3. And it is the committed default run's, result by result.
"$digest_tool" "$work/default/results.json" >"$work/digest.json"
python3 - "$work/digest.json" "$src/tests/data/default-run-seed1.digest.json" <<'PY' && echo "ok:   every result equals the committed digest of the default run" || fails=$((fails + 1))
import json, sys
got, want = (json.load(open(p)) for p in sys.argv[1:3])
assert len(got) >= 9, f"only {len(got)} results"
bad = [k for k in got if got[k] != want.get(k)]
if bad:
    print("FAIL: differ from the committed digest:", ", ".join(bad[:10]))
    sys.exit(1)
print(f"     {len(got)} results")
PY

[ $fails -eq 0 ] && echo "all exact-sum path checks passed" || echo "$fails failed"
exit $((fails > 0))
