#!/usr/bin/env bash
# The grading side's figures do not depend on which glibc libm code the CPU
# selects. The same run twice, once as it is and once under
# GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F,-FMA4 (glibc then
# takes its SSE2 code for exp, log, pow, sin, cos, tanh, ..., which rounds
# differently in the last bit), each with --dump (every graded element's
# inputs and the kernel's output bits): for every kernel x dtype whose
# kernel outputs are the same in both runs, its result must be the same
# too, digest entry for digest entry (tests/results_digest.h). A kernel
# whose own libm result moved is the subject being graded, not the grading
# side: it is listed and skipped. Also: the run without --dump (whose bulk
# lane tallies the fast path's passes in blocks) writes the document of
# the run with it (every element through the general path, in order).
# `short` (the default ctest): the unary kernels whose fast path calls
# glibc's double functions, every dtype (the f64 kernels' own outputs
# move); `full` (nightly): the whole default run (2.4 GB of dump a run).
# Usage: libm_variants_test.sh KCONFORM KC_RESULTS_DIGEST [short|full]
set -u
kc="$1"
digest_tool="$2"
mode="${3:-short}"
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$here/expect.sh"

args=(run -q)
# (short: the kernels with a fast path through glibc's double functions)
[ "$mode" = full ] || args+=(--kernel exp --kernel log --kernel sin --kernel cos --kernel tanh --kernel erf --kernel sigmoid)
tunables="glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F,-FMA4"
expect 0 "the run as the CPU selects libm, with --dump" -- "$kc" "${args[@]}" --out "$work/a" --dump "$work/a.dump"
GLIBC_TUNABLES=$tunables expect 0 "the run under GLIBC_TUNABLES=$tunables, with --dump" -- \
  "$kc" "${args[@]}" --out "$work/b" --dump "$work/b.dump"
expect 0 "the run without --dump (the bulk lane)" -- "$kc" "${args[@]}" --out "$work/c"
if python3 "$here/same_results.py" "$work/a/results.json" "$work/c/results.json" >"$work/diff" 2>&1; then
  echo "ok:   the bulk lane's document is the general path's"
else
  echo "FAIL: --dump (the general path) and the bulk lane differ:"; cat "$work/diff"; fails=$((fails + 1))
fi
"$digest_tool" "$work/a/results.json" >"$work/a.digest"
"$digest_tool" "$work/b/results.json" >"$work/b.digest"
python3 - "$work" "$mode" <<'PY' || fails=$((fails + 1))
import hashlib, json, sys
work, mode = sys.argv[1], sys.argv[2]

def outputs(path):
    # Per "kernel dtype": a hash of its dump lines (case, element, inputs, output bits) in order.
    h = {}
    with open(path, "rb") as f:
        for line in f:
            k, t, _ = line.split(b" ", 2)
            h.setdefault((k + b" " + t).decode(), hashlib.sha1()).update(line)
    return {k: v.hexdigest() for k, v in h.items()}

oa, ob = outputs(f"{work}/a.dump"), outputs(f"{work}/b.dump")
da, db = (json.load(open(f"{work}/{x}.digest")) for x in "ab")
same = [k for k in da if k in oa and oa.get(k) == ob.get(k)]
moved = sorted(k for k in da if oa.get(k) != ob.get(k))
bad = [k for k in same if da[k] != db[k]]
print(f"     {len(da)} results: {len(same)} with the same kernel outputs in both runs, {len(moved)} whose kernel's own libm moved")
if moved:
    print("     (skipped, the kernel's own results: " + ", ".join(moved) + ")")
else:
    print("     note: the tunables moved no kernel output (a CPU without FMA and AVX2 runs the same libm code either way)")
for k in bad:
    fields = [f for f in da[k] if da[k][f] != db[k].get(f)]
    print(f"FAIL: {k}: the kernel's outputs are the same, but its {', '.join(fields)} differ")
assert len(same) >= (300 if mode == "full" else 16), f"only {len(same)} results compared"
if bad:
    sys.exit(1)
print("ok:   every result whose kernel outputs did not move is the same, figure for figure")
PY
[ $fails -eq 0 ] && echo "all libm-variant checks passed" || echo "$fails failed"
exit $((fails > 0))
