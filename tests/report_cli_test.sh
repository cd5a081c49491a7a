#!/usr/bin/env bash
# `kconform report` from the command line: exit 0 on a render, 1 on a
# regression against a baseline, 2 on usage errors and unreadable or invalid
# documents (with a message), and `run --out` still renders DIR/site.
set -u
kc="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"
"$kc" run --kernel relu --dtype f32 --cases 5 --no-exhaustive --out "$work/a" >/dev/null
"$kc" run --kernel sqrt --dtype f32 --cases 5 --no-exhaustive --out "$work/b" >/dev/null
[ -f "$work/a/site/index.html" ] && [ -f "$work/a/site/kernel-relu.html" ] || { echo "FAIL: run --out did not render site/"; fails=$((fails + 1)); }
echo '{ broken' >"$work/broken.json"
echo '{"schema": "other/1"}' >"$work/other.json"
expect 0 "report one document"             -- "$kc" report "$work/a/results.json" --out "$work/s1"
expect 0 "report two documents merged"     -- "$kc" report "$work/a/results.json" "$work/b/results.json" --out "$work/s2"
expect 2 "same kernel x dtype, same seed, twice" -- "$kc" report "$work/a/results.json" "$work/a/results.json" --out "$work/s3"
grep -q "'relu'" "$work/out" || { echo "FAIL: the duplicate message does not name the kernel"; fails=$((fails + 1)); }
"$kc" run --kernel relu --dtype f32 --cases 5 --no-exhaustive --seed 2 --out "$work/a2" >/dev/null
expect 0 "same kernel x dtype from two seeds: merged" -- "$kc" report "$work/a/results.json" "$work/a2/results.json" --out "$work/s3"
grep -q "Merged from runs" "$work/s3/kernel-relu.html" || { echo "FAIL: the merged page does not say it is merged"; fails=$((fails + 1)); }
expect 2 "missing document"                -- "$kc" report "$work/nope.json" --out "$work/s4"
expect 2 "not JSON"                        -- "$kc" report "$work/broken.json" --out "$work/s4"
expect 2 "not a results document"          -- "$kc" report "$work/other.json" --out "$work/s4"
expect 2 "no --out"                        -- "$kc" report "$work/a/results.json"
expect 2 "unreadable baseline"             -- "$kc" report "$work/a/results.json" --baseline "$work/broken.json" --out "$work/s4"
[ -e "$work/s4" ] && { echo "FAIL: a failed report left a site"; fails=$((fails + 1)); }
expect 0 "baseline equal to the run"       -- "$kc" report "$work/a/results.json" --baseline "$work/a/results.json" --out "$work/s5"
expect 0 "baseline with a kernel now gone: missing, not a regression" -- "$kc" report "$work/b/results.json" --baseline "$work/a/results.json" --out "$work/s6"
grep -q "no regression: 0 regressions, .* 1 missing from this run" "$work/out" || { echo "FAIL: the missing result is not counted apart"; fails=$((fails + 1)); }
[ -f "$work/s6/diff.html" ] || { echo "FAIL: no diff.html"; fails=$((fails + 1)); }
expect 0 "another seed as baseline: drift, not a regression" -- "$kc" report "$work/a2/results.json" --baseline "$work/a/results.json" --out "$work/s7"
# relu(NaN) = NaN is correct (the conformance profile passes it) but not the
# reference: graded in the reference profile, as the baseline was, it regresses.
"$kc" run --kernel relu --dtype f32 --cases 5 --no-exhaustive --backend mutant:relu_nan_propagates --profile reference --out "$work/m" >/dev/null
expect 1 "a defect on the same inputs: a regression" -- "$kc" report "$work/m/results.json" --baseline "$work/a/results.json" --out "$work/s8"
grep -q "^REGRESSION relu f32 (same inputs): verdict pass -> fail" "$work/out" || { echo "FAIL: the regression is not listed first"; sed 's/^/    /' "$work/out"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "all report CLI checks passed"
[ "$fails" -eq 0 ]
