#!/usr/bin/env bash
# Plug-in backends end to end: the example library's flawed expf fails the
# conformance profile with a replay that reproduces it; its correct kernels
# pass (relu's NaN choice listed as a difference); the results record the
# library's own name, version and flags; libraries that crash, abort, hang
# or write out of bounds are reported by kind and survived, with complete
# results and site and no worker left behind; load errors exit 2.
set -u
kc="$1" fastmath="$2" crash="$3" abort="$4" hang="$5" oob="$6" abi="$7" unknown="$8" shape="$9" input="${10}" throw="${11}" declared="${12}" movers="${13}" attn_bwd="${14}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"
check() { "$@" || { echo "FAIL: $*"; fails=$((fails + 1)); }; }
# A process whose command line starts with $1 and contains $2 (read from
# /proc, matched in the shell itself so the search never finds itself).
alive_with() {
  local f cmd
  for f in /proc/[0-9]*/cmdline; do
    cmd=$(tr '\0' ' ' <"$f" 2>/dev/null) || continue
    case "$cmd" in "$1"*"$2"*) return 0 ;; esac
  done
  return 1
}

expect 1 "example plug-in: the flawed expf fails" -- "$kc" run --backend "plugin:$fastmath" --out "$work/fm"
check grep -q "^FAIL exp  *f32  *accuracy: fractional error .* > 2.5 on" "$work/out"
check grep -q "^PASS sqrt  *f32" "$work/out"
check grep -q "^PASS neg  *f32" "$work/out"
check grep -q "^PASS relu  *f32 .*differs from the reference: .*reference-choice" "$work/out"
check grep -q "^FAIL exp .*claim frac_ulp <= 1: refuted (measured [0-9.]*)" "$work/out"
check grep -q "^PASS sqrt .*claim frac_ulp <= 0.5: confirmed" "$work/out"
check python3 - "$work/fm/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["run"]["plugin"]
assert p["name"] == "fastmath" and p["version"] == "0.1.0" and p["build_flags"] == "-O2 -fPIC", p
assert d["run"]["profile"] == "conformance", d["run"]["profile"]
PY
# Replays carry the environment a plug-in may depend on (issue 37, item 9):
# the default list (OPENBLAS_*, OMP_*, ...) and --record-env's names are
# recorded in results.json and prefixed to every printed replay.
cp "$work/out" "$work/out.fm"
expect 1 "recorded environment" -- env OPENBLAS_CORETYPE=Haswell KC_TEST_TUNING='a b' "$kc" run --backend "plugin:$fastmath" \
  --kernel exp --dtype f32 --cases 5 --record-env 'KC_TEST_*' --out "$work/env"
check grep -q "replay: *KC_TEST_TUNING='a b' OPENBLAS_CORETYPE=Haswell kconform run --kernel exp" "$work/out"
check python3 - "$work/env/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["environment"] == {"KC_TEST_TUNING": "a b", "OPENBLAS_CORETYPE": "Haswell"}, d["run"]["environment"]
PY
cp "$work/out.fm" "$work/out"
# Every printed replay of the expf failure reproduces it.
grep -o "replay: *kconform run --kernel exp .*" "$work/out" | sed 's/^replay: *kconform //' | sort -u | head -4 >"$work/replays"
[ -s "$work/replays" ] || { echo "FAIL: no replay printed for exp"; fails=$((fails + 1)); }
while read -r line; do
  # shellcheck disable=SC2086
  expect 1 "replay: $line" -- "$kc" $line
  check grep -q "^exp f32: accuracy" "$work/out"
done <"$work/replays"

# Misbehaving libraries: each misbehaves on the cases whose element count
# is 3 mod 5; the run records those as failures of that kind and goes on.
# The no-worker-left check can fail: a process carrying a run's path is seen.
bash -c 'exec -a "probe $0" sleep 30' "$work/probe-path" &
probe=$!
sleep 0.3
alive_with probe "$work/probe-path" || { echo "FAIL: alive_with cannot see a live process"; fails=$((fails + 1)); }
kill "$probe"; wait "$probe" 2>/dev/null

for pair in "crash:crashed (killed by SIGSEGV)" "abort:aborted (killed by SIGABRT)" \
            "timeout:ran past the per-call time limit" "out-of-bounds write:the kernel wrote at byte 0 past the end of output 0" \
            "exception:an exception escaped the kernel: neg: an internal error" \
            "input modified:the kernel wrote into input 'x', which is read-only"; do
  kind=${pair%%:*} text=${pair#*:}
  case $kind in crash) lib=$crash ;; abort) lib=$abort ;; timeout) lib=$hang ;; exception) lib=$throw ;; input*) lib=$input ;; *) lib=$oob ;; esac
  out="$work/$(echo "$kind" | tr -c 'a-z\n' '_')"
  expect 1 "$kind plug-in is reported and survived" -- "$kc" run --backend "plugin:$lib" --cases 20 --timeout 0.5 --out "$out"
  check grep -q "^neg f32: returns: no crash, abort, exception, hang or stray write: $kind: .*$text" "$work/out"
  check grep -q "^FAIL neg .*returns: .*: [0-9]* of [0-9]* failed; [0-9]* elements graded" "$work/out"
  check test -s "$out/results.json"
  check test -s "$out/site/kernel-neg.html"
  # The run went on past the failing cases: the correct ones were graded.
  check python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['kernels'][0]['results'][0]; assert r['elements'] > 1000 and r['cases'] >= 20, r['cases']" "$out/results.json"
  # Its replay reproduces the same kind of failure.
  rep=$(grep -m1 -o "replay: kconform run .*--case [0-9]*" "$work/out" | sed 's/^replay: kconform //')
  # shellcheck disable=SC2086
  expect 1 "$kind replay" -- "$kc" $rep
  check grep -q "returns: .*$kind" "$work/out"
  # No worker outlives kconform (each is reaped, and dies with its parent).
  sleep 0.2
  if alive_with "$kc" "$out"; then echo "FAIL: a worker of the $kind run is still alive"; fails=$((fails + 1)); fi
done

# Declared claims and expected failures: judged, shown side by side, never hidden.
expect 1 "declared: an unexpected pass exits 1" -- "$kc" run --backend "plugin:$declared" --out "$work/decl"
check grep -q "^PASS exp .*claim frac_ulp <= 0.5001: confirmed" "$work/out"
check grep -q "^PASS neg .*claim distance <= 0: confirmed" "$work/out"
check grep -q "^XFAIL log .*expected to fail: subnormal inputs are flushed to zero" "$work/out"
check grep -q "^XPASS sqrt .*expected to fail: not yet validated" "$work/out"
check grep -q "pass, 1 failed as the backend expected" "$work/out"
check grep -q "claim confirmed" "$work/decl/site/index.html"
check grep -q "passed unexpectedly" "$work/decl/site/index.html"
check grep -q "Declared by the backend" "$work/decl/site/kernel-exp.html"
expect 0 "declared: the expected failure alone exits 0" -- "$kc" run --backend "plugin:$declared" --kernel log
check grep -q "^XFAIL log" "$work/out"

# The newer families from outside (ABI 2's kc_error.rule names the rules the
# status list lacks): slice passes bit for bit with every bad-input rule
# raised; cumsum's wider accumulator passes the conformance profile and
# differs from the reference's bits, which the reference profile fails.
expect 0 "movers: slice and cumsum pass the conformance profile" -- "$kc" run --backend "plugin:$movers" --out "$work/mov"
check grep -q "^PASS slice  *f32 .*claim distance <= 0: confirmed" "$work/out"
check grep -q "^PASS cumsum  *f32 .*differs from the reference: [0-9]* semantics" "$work/out"
check python3 - "$work/mov/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in d["kernels"]:
    for r in k["results"]:
        bad = [c for c in r["checks"] if c["kind"] == "bad-input"]
        assert bad and all(c["failed"] == 0 and c["passed"] > 0 for c in bad), (k["name"], bad)
        assert any(c["name"] == "bad-input:range.out_of_bounds (len)" for c in bad) or k["name"] != "slice"
PY
expect 1 "movers: the reference profile fails cumsum's bits" -- "$kc" run --backend "plugin:$movers" --kernel cumsum --profile reference
check grep -q "^FAIL cumsum  *f32  *semantics" "$work/out"

# A kernel of three outputs from outside (attention_flash_backward: dQ, dK,
# dV through three alloc_output calls): its double accumulators pass the
# conformance profile, every bad-input rule raised, and differ from the
# reference's bits, which the reference profile fails.
expect 0 "attention backward plug-in: the conformance profile" -- "$kc" run --backend "plugin:$attn_bwd" --out "$work/ab"
check grep -q "^PASS attention_flash_backward  *f32 .*differs from the reference: [0-9]* semantics" "$work/out"
check python3 - "$work/ab/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
(k,) = d["kernels"]
(r,) = k["results"]
bad = [c for c in r["checks"] if c["kind"] == "bad-input"]
assert len(bad) >= 20 and all(c["failed"] == 0 and c["passed"] > 0 for c in bad), bad
stats = [c for c in r["checks"] if c["kind"] == "statistics"]
assert stats and all(c["failed"] == 0 and c["passed"] > 0 for c in stats), stats
PY
expect 1 "attention backward plug-in: the reference profile fails its bits" -- "$kc" run --backend "plugin:$attn_bwd" --profile reference
check grep -q "^FAIL attention_flash_backward  *f32  *semantics" "$work/out"

# A wrong output shape is a contract failure, not a load error.
expect 1 "wrong output shape" -- "$kc" run --backend "plugin:$shape" --cases 20
check grep -q "^FAIL neg .*output shape and dtype" "$work/out"
check grep -q "expected \[.*\] f32, got \[[0-9]*\] f32" "$work/out"

expect 2 "ABI version mismatch"  -- "$kc" run --backend "plugin:$abi"
check grep -q "plug-in ABI version 100; this kconform speaks versions 1 to 2" "$work/out"
expect 2 "unknown kernel name"   -- "$kc" run --backend "plugin:$unknown"
check grep -q "registers kernel 'frobnicate', which is not an inventory kernel" "$work/out"
expect 2 "missing register symbol" -- "$kc" run --backend "plugin:$(ldd "$kc" | awk '/libm\.so/ {print $3}')"
check grep -q "does not export kconform_plugin_register" "$work/out"
expect 2 "no such library"       -- "$kc" run --backend "plugin:$work/nope.so"
expect 2 "a kernel the plug-in lacks" -- "$kc" run --backend "plugin:$fastmath" --kernel tanh
# A dtype the contract lists but the plug-in lacks names the plug-in, not the contract.
expect 2 "a dtype the plug-in lacks" -- "$kc" run --backend "plugin:$fastmath" --kernel exp --dtype bf16
check grep -q "does not implement exp bf16 (it implements f32; the contract lists f32, f64, bf16, f16)" "$work/out"

echo "$fails failed"
[ "$fails" -eq 0 ]
