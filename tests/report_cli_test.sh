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
expect 2 "same kernel x dtype twice"       -- "$kc" report "$work/a/results.json" "$work/a/results.json" --out "$work/s3"
grep -q "'relu'" "$work/out" || { echo "FAIL: the duplicate message does not name the kernel"; fails=$((fails + 1)); }
expect 2 "missing document"                -- "$kc" report "$work/nope.json" --out "$work/s4"
expect 2 "not JSON"                        -- "$kc" report "$work/broken.json" --out "$work/s4"
expect 2 "not a results document"          -- "$kc" report "$work/other.json" --out "$work/s4"
expect 2 "no --out"                        -- "$kc" report "$work/a/results.json"
expect 2 "unreadable baseline"             -- "$kc" report "$work/a/results.json" --baseline "$work/broken.json" --out "$work/s4"
[ -e "$work/s4" ] && { echo "FAIL: a failed report left a site"; fails=$((fails + 1)); }
expect 0 "baseline equal to the run"       -- "$kc" report "$work/a/results.json" --baseline "$work/a/results.json" --out "$work/s5"
expect 1 "baseline with a kernel now gone" -- "$kc" report "$work/b/results.json" --baseline "$work/a/results.json" --out "$work/s6"
grep -q "REGRESSION new failure: relu f32" "$work/out" || { echo "FAIL: the regression is not listed"; fails=$((fails + 1)); }
[ -f "$work/s6/diff.html" ] || { echo "FAIL: no diff.html"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "all report CLI checks passed"
[ "$fails" -eq 0 ]
