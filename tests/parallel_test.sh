#!/usr/bin/env bash
# `kconform run -j N`: the same results document (apart from timings) and
# the same --dump file for 1, 2 and 3 worker processes, on a run with
# failures, shrinking and a kernel that passes; a stopped parallel run
# keeps what finished; no worker outlives a SIGKILLed kconform.
set -u
kc="$1"
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$here/expect.sh"

args=(run --backend mutant:exp_f32_2ulp --kernel exp --kernel log --kernel add --kernel sum_dim --kernel argmax_dim
      --cases 12 --seed 5 --quiet)
for j in 1 2 3; do
  expect 1 "-j $j grades the mutant (it fails)" -- "$kc" "${args[@]}" -j "$j" --out "$work/j$j" --dump "$work/dump$j"
done
for j in 2 3; do
  if python3 "$here/same_results.py" "$work/j1/results.json" "$work/j$j/results.json" >"$work/diff" 2>&1; then
    echo "ok:   -j $j writes the -j 1 document"
  else
    echo "FAIL: -j $j differs from -j 1:"; cat "$work/diff"; fails=$((fails + 1))
  fi
  cmp -s "$work/dump1" "$work/dump$j" && echo "ok:   -j $j writes the -j 1 dump" ||
    { echo "FAIL: the -j $j dump differs"; fails=$((fails + 1)); }
done
python3 - "$work/j2/results.json" <<'PY' && echo "ok:   the document holds every result, in plan order" || { echo "FAIL: plan order"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
names = [k["name"] for k in d["kernels"]]
assert names == ["exp", "log", "add", "sum_dim", "argmax_dim"], names
assert d["totals"]["fail"] >= 1 and d["totals"]["kernel_dtypes"] == sum(len(k["results"]) for k in d["kernels"])
PY
grep -q "2 processes" "$work/out" 2>/dev/null || "$kc" "${args[@]}" -j 2 >"$work/out" 2>&1
grep -q "2 processes" "$work/out" && echo "ok:   the summary names the processes" || { echo "FAIL: no process count"; fails=$((fails + 1)); }
expect 2 "-j 0 is a usage error" -- "$kc" run -j 0 --kernel neg

# SIGINT to the parent: it stops the workers at a case boundary and writes what finished.
# (The whole default run: long enough to be stopped midway however fast the grading gets.)
"$kc" run -j 2 --quiet --out "$work/int" >"$work/int.log" 2>&1 &
pid=$!
sleep 1.5
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && grep -q "interrupted by SIGINT" "$work/int.log" && [ -f "$work/int/results.json" ] &&
  echo "ok:   SIGINT stops a parallel run with its results (exit 130)" ||
  { echo "FAIL: SIGINT: exit $rc"; cat "$work/int.log"; fails=$((fails + 1)); }

# SIGKILL to the parent: its workers die with it.
"$kc" run -j 2 --quiet --out "$work/kill" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kids=$(pgrep -P "$pid" | tr '\n' ' ')
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
left=0
for k in $kids; do  # a zombie awaiting its reaper is not alive
  st=$(ps -o stat= -p "$k" 2>/dev/null | tr -d " "); [ -n "$st" ] && [ "${st#Z}" = "$st" ] && left=$((left + 1))
done
[ -n "$kids" ] && [ "$left" -eq 0 ] && echo "ok:   no worker outlives a SIGKILLed kconform ($kids)" ||
  { echo "FAIL: workers left after SIGKILL: '$kids' ($left alive)"; fails=$((fails + 1)); }

[ "$fails" -eq 0 ] && echo "all parallel checks pass" || echo "$fails failure(s)"
[ "$fails" -eq 0 ]
