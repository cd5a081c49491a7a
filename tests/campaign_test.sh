#!/usr/bin/env bash
# `kconform campaign` and `kconform merge`: four shards merge to the
# document one process writes for the same batches (on a mutant, so that
# failures, shrinking and worst cases merge too); a campaign SIGKILLed
# mid-way and restarted with the same arguments ends with the uninterrupted
# document (no batch lost or counted twice); a budget campaign stops near
# its budget and gives every kernel x dtype time; bad arguments are exit 2.
set -u
kc="$1"
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$here/expect.sh"
same() {  # same DESCRIPTION A.json B.json
  if python3 "$here/same_results.py" "$2" "$3" >"$work/diff" 2>&1; then echo "ok:   $1"; else
    echo "FAIL: $1:"; cat "$work/diff"; fails=$((fails + 1)); fi
}

units=(--backend mutant:exp_f32_2ulp -k exp -k log -k add -k sum_dim -k argmax_dim -d f32 -d bf16 --cases 6 --seed 9)
expect 1 "one process, 4 batches per kernel x dtype (the mutant fails)" -- "$kc" campaign "${units[@]}" --batches 4 --out "$work/one" -q
for i in 0 1 2 3; do
  expect 1 "shard $i/4 (-j 1)" -- "$kc" campaign "${units[@]}" --batches 4 --shard "$i/4" -j 1 --out "$work/s$i" -q
done
expect 1 "merge of the four shards" -- "$kc" merge "$work/s0" "$work/s1" "$work/s2" "$work/s3" --out "$work/merged"
same "the four shards merge to the single-process document" "$work/one/results/results.json" "$work/merged/results.json"
python3 - "$work/merged/results.json" <<'PY' && echo "ok:   the merge has 40 batches and the mutant's failure" || { echo "FAIL: merged content"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["runs"]) == 40, len(d["runs"])
exp = [r for k in d["kernels"] if k["name"] == "exp" for r in k["results"] if r["dtype"] == "f32"][0]
assert exp["verdict"] == "fail" and exp["cases"] > 0, exp["verdict"]
PY
expect 2 "a shard merged twice" -- "$kc" merge "$work/s0" "$work/s0" --out "$work/twice"
grep -q "count twice" "$work/out" && echo "ok:   ... says the cases would count twice" || { echo "FAIL: message"; fails=$((fails + 1)); }
expect 2 "shards of other campaigns" -- "$kc" merge "$work/s0" "$work/one" --out "$work/other"

# SIGKILL mid-way, then the same command: the uninterrupted document.
long=(-k exp -k sin -k add -k sum_dim -d f32 -d bf16 -d f16 --cases 10 --seed 4 --batches 6)
expect 0 "an uninterrupted campaign" -- "$kc" campaign "${long[@]}" --out "$work/whole" -q
"$kc" campaign "${long[@]}" --out "$work/killed" -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do
  n=$(ls "$work/killed/batches" 2>/dev/null | grep -c 'json$')
  [ "$n" -ge 8 ] && break
  sleep 0.02
done
kill -KILL "$pid"; wait "$pid" 2>/dev/null
kept=$(ls "$work/killed/batches" | grep -c 'json$')
[ "$kept" -ge 1 ] && [ "$kept" -lt 36 ] && echo "ok:   killed with $kept of 36 batches kept" ||
  { echo "FAIL: the kill left $kept batches"; fails=$((fails + 1)); }
expect 0 "the restart with the same arguments" -- "$kc" campaign "${long[@]}" --out "$work/killed" -q
same "the resumed campaign's document is the uninterrupted one" "$work/whole/results/results.json" "$work/killed/results/results.json"
expect 2 "the folder with other arguments" -- "$kc" campaign "${long[@]}" --seed 5 --out "$work/killed"

# A budget: it ends near it, and every kernel x dtype got batches.
start=$(date +%s.%N)
expect 0 "a 6 s budget" -- "$kc" campaign -k exp -k reduce_max_to_backward -k add -d f32 -d f16 --budget 6s --out "$work/budget" -q
took=$(echo "$(date +%s.%N) - $start" | bc)
python3 - "$work/budget/results/results.json" "$took" <<'PY' && echo "ok:   the budget is kept ($took s) and no kernel x dtype starves" || { echo "FAIL: budget"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1])); took = float(sys.argv[2])
assert took < 6 + 8, took
secs = {(k["name"], r["dtype"]): r["seconds"] for k in d["kernels"] for r in k["results"]}
assert len(secs) == 6, secs
assert min(secs.values()) > 0.1 * max(secs.values()), secs   # time shared, not cases
PY
expect 2 "both --budget and --batches" -- "$kc" campaign -k exp --budget 1m --batches 2 --out "$work/x"
expect 2 "a bad budget" -- "$kc" campaign -k exp --budget 5 --out "$work/x"
expect 2 "a bad shard" -- "$kc" campaign -k exp --batches 2 --shard 4/4 --out "$work/x"

# A batch's command replays the batch: it carries the campaign's profile and
# isolation options (it once dropped both), and run alone it gives the
# batch's own results.
replayed=(--backend mutant:exp_f32_2ulp -k exp -d f32 --profile reference --timeout 7 --cases 4 --seed 3 --batches 2)
expect 1 "a campaign in the reference profile with --timeout 7" -- "$kc" campaign "${replayed[@]}" --out "$work/rp" -q
cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["command"])' "$work/rp/batches/exp.f32.000001.json")
echo "$cmd" | grep -q -- "--timeout 7" && echo "$cmd" | grep -q -- "--profile reference" &&
  echo "ok:   batch 1's command carries the options: $cmd" || { echo "FAIL: batch 1's command: $cmd"; fails=$((fails + 1)); }
want=$(python3 -c 'import json,sys; print(0 if json.load(open(sys.argv[1]))["kernels"][0]["results"][0]["verdict"] == "pass" else 1)' "$work/rp/batches/exp.f32.000001.json")
expect "$want" "batch 1's command (exit $want, as its verdict)" -- bash -c "\"$kc\"${cmd#kconform} --out \"$work/rp1\" -q"
python3 - "$work/rp/batches/exp.f32.000001.json" "$work/rp1/results.json" <<'PY' && echo "ok:   ... gives the batch's results" || { echo "FAIL: the replayed batch differs"; fails=$((fails + 1)); }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    for k in d["kernels"]:
        for r in k["results"]:
            r.pop("seconds", None)
assert a["kernels"] == b["kernels"], "kernels differ"
assert a["run"]["profile"] == b["run"]["profile"] == "reference", (a["run"]["profile"], b["run"]["profile"])
PY

# The deploy/ recipes: each scheduler's shard variable, the same merged document.
deploy="$here/../deploy"
small=(-k exp -k add -d f32 -d bf16 --cases 4 --seed 2)
expect 0 "one process, 3 batches" -- "$kc" campaign "${small[@]}" --batches 3 --out "$work/d1" -q
export KONFORM="$kc" KC_BATCHES=3 KC_SEED=2 KC_ARGS="-k exp -k add -d f32 -d bf16 --cases 4"
for i in 0 1 2; do
  KC_CAMPAIGN_ROOT="$work/slurm" SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 "$deploy/kconform-shard.sh" >/dev/null 2>&1
  KC_CAMPAIGN_ROOT="$work/k8s" KC_SHARDS=3 JOB_COMPLETION_INDEX=$i "$deploy/kconform-shard.sh" >/dev/null 2>&1
done
expect 0 "merge of the Slurm array's shards" -- "$kc" merge "$work/slurm"/shard-* --out "$work/slurm/merged"
same "Slurm's shards (SLURM_ARRAY_TASK_ID) merge to the single process" "$work/d1/results/results.json" "$work/slurm/merged/results.json"
expect 0 "merge of the Indexed Job's shards" -- "$kc" merge "$work/k8s"/shard-* --out "$work/k8s/merged"
same "the Indexed Job's shards (JOB_COMPLETION_INDEX) merge to the single process" "$work/d1/results/results.json" "$work/k8s/merged/results.json"
expect 0 "deploy/parallel.sh with GNU parallel, 3 shards" -- env KC_CAMPAIGN_ROOT="$work/gnu" KC_SHARDS=3 "$deploy/parallel.sh"
same "GNU parallel's shards merge to the single process" "$work/d1/results/results.json" "$work/gnu/merged/results.json"
expect 2 "the shard script without an index" -- env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX KC_CAMPAIGN_ROOT="$work/none" "$deploy/kconform-shard.sh"
unset KONFORM KC_BATCHES KC_SEED KC_ARGS

[ "$fails" -eq 0 ] && echo "all campaign checks pass" || echo "$fails failure(s)"
[ "$fails" -eq 0 ]
