#!/usr/bin/env bash
# Plug-ins that attack the worker or cheat the verdict (tests/plugins/
# hostile.c, one library per behaviour): each gets the right verdict, its
# printed replay reproduces it, no run is lost, nothing outlives kconform,
# and the correct kernel graded after the misbehaving one in the same run
# (sqrt f32) passes. Exp f32, 20 cases, seed 1 unless said.
# Usage: hostile_plugins_test.sh KCONFORM HOSTILE_DIR HANG_PLUGIN
set -u
kc="$1" dir="$2" hang="$3"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
said() {  # said PATTERN: the last expect's output matches the extended regular expression
  if grep -qE -- "$1" "$work/out"; then echo "ok:   ... says: $1"; else
    fail "the output lacks: $1"; sed 's/^/    /' "$work/out" | head -8; fi
}
lib() { echo "$dir/hostile_$1.so"; }
# A process whose command line contains $1 (read from /proc, matched in the
# shell itself so the search never finds itself).
alive_with() {
  local f cmd
  for f in /proc/[0-9]*/cmdline; do
    cmd=$( (tr '\0' ' ' <"$f") 2>/dev/null) || continue
    case "$cmd" in *"$1"*) return 0 ;; esac
  done
  return 1
}
# The results document's check of `kind` for exp: "passed failed".
check_counts() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in d["kernels"]:
    if k["name"] != "exp":
        continue
    for c in k["results"][0]["checks"]:
        if c["name"].startswith(sys.argv[2]):
            print(c["passed"], c["failed"])
PY
}
# graded MODE CHECK TEXT: a run of the mode's library fails exp's CHECK
# with a message matching TEXT, sqrt passes, the results are whole, and the
# first replay printed for CHECK fails it again the same way.
graded() {
  local mode=$1 check=$2 text=$3
  shift 3
  local out="$work/$mode"
  expect 1 "$mode: exp fails '$check'" -- "$kc" run --backend "plugin:$(lib "$mode")" --cases 20 --seed 1 --out "$out" "$@"
  said "^FAIL exp +f32 .*"
  said "^PASS sqrt +f32"
  said "^exp f32: $check: .*$text"
  [ -s "$out/results.json" ] && [ -s "$out/site/kernel-exp.html" ] || fail "$mode: the results or the site are missing"
  local replay
  replay=$(grep -A4 -E "^exp f32: $check: " "$work/out" | grep -m1 -oE "replay: +kconform run .*" | sed -E 's/^replay: +kconform //')
  [ -n "$replay" ] || { fail "$mode: no replay printed"; return; }
  # shellcheck disable=SC2086
  expect 1 "$mode: its replay reproduces it" -- "$kc" $replay
  said "^exp f32: $check: .*$text"
  sleep 0.2
  if alive_with "$out"; then fail "$mode: a process of the run is still alive"; fi
}

# --- Text that is not UTF-8 never costs a run: repaired and flagged.
expect 1 "bad UTF-8: the run is whole (exp passes: declared to fail, an unexpected pass)" -- \
  "$kc" run --backend "plugin:$(lib bad_utf8)" --cases 20 --out "$work/utf8"
said "^XPASS exp .*expected to fail: flaky $(printf '\xef\xbf\xbd')\($(printf '\xef\xbf\xbd') reason"
/usr/bin/python3 - "$work/utf8/results.json" <<'PY' || fail "bad UTF-8: the plug-in's text is not repaired and flagged"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["run"]["plugin"]
assert p["name"] == "hostile \ufffd\ufffd" and p["version"] == "1.\ufffd", p
assert any(n.startswith("library name: bytes that are not UTF-8") for n in p["notes"]), p["notes"]
assert any("expected-failure reason" in n for n in p["notes"]), p["notes"]
bad = [c for k in d["kernels"] if k["name"] == "exp" for c in k["results"][0]["checks"] if c["kind"] == "bad-input"]
assert bad and all(c["failed"] == 0 for c in bad), bad
PY
grep -q "plug-in</dt><dd><table class=\"fields\">" "$work/utf8/site/index.html" || fail "the index shows the plug-in's metadata as a table"

# --- A rule kconform does not know (a misspelt kc_error.rule) is the bad-input
# check's clear mismatch, naming the plug-in's text; the other rules and the
# run are whole.
expect 1 "an unknown rule: exp's bad-input check of dtype.unsupported fails" -- \
  "$kc" run --backend "plugin:$(lib unknown_rule)" --cases 20 --seed 1 --out "$work/rule"
said "^FAIL exp +f32 +bad-input:dtype.unsupported \(x\): 6 of 6 failed"
said "^exp f32: bad-input:dtype.unsupported \(x\) \(variant 0\): expected rule 'dtype.unsupported' on operand 'x' of kernel 'exp', got: exp: operand 'x' breaks rule 'dtype.unsuported': .*\(rule 'dtype.unsuported' is not a rule kconform knows"
said "^PASS sqrt +f32"
/usr/bin/python3 - "$work/rule/results.json" <<'PY' || fail "an unknown rule: the results do not say which bad-input check failed"
import json, sys
d = json.load(open(sys.argv[1]))
bad = {c["name"]: c["failed"] for k in d["kernels"] if k["name"] == "exp" for c in k["results"][0]["checks"] if c["kind"] == "bad-input"}
assert bad.pop("bad-input:dtype.unsupported (x)") == 6, bad
assert bad and all(f == 0 for f in bad.values()), bad
PY

# --- Registration under a limit; lies refused with what they are.
expect 2 "register never returns: exit 2 within the load limit" -- timeout 20 "$kc" run --backend "plugin:$(lib reg_hang)" --load-timeout 1
said "did not finish within 1 s \(--load-timeout\); the worker was killed"
expect 2 "register crashes" -- "$kc" run --backend "plugin:$(lib reg_crash)"
said "while loading or registering, it crashed \(killed by SIGSEGV\)"
expect 2 "exp f32 registered twice" -- "$kc" run --backend "plugin:$(lib reg_dup)"
said "registers exp f32 twice \(kernel entries 0 and 2\)"
expect 2 "an unknown claim metric" -- "$kc" run --backend "plugin:$(lib reg_claim)"
said "claims metric 7, which is not a kc_claim_metric"
expect 2 "a kernel count of 2^31 - 1 for an array of 2" -- "$kc" run --backend "plugin:$(lib reg_count)"
said "kernel entry 2 of 2147483647 has an unreadable name \(is n_kernels = 2147483647 larger than the kernels array\?\)"
expect 0 "a 2 MB library name: cut, with a note" -- "$kc" run --backend "plugin:$(lib huge_name)" --kernel sqrt --cases 5 --out "$work/huge"
/usr/bin/python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))['run']['plugin']
assert len(p['name']) == 256 and 'library name: 2097151 bytes long, cut to the first 256' in p['notes'], p['notes']
" "$work/huge/results.json" || fail "the huge name is not cut with a note"
# (signalled once kconform has started its worker: then it is loading)
"$kc" run --backend "plugin:$(lib reg_hang)" >"$work/out" 2>&1 &
pid=$!
for _ in $(seq 300); do [ -n "$(cat "/proc/$pid/task/$pid/children" 2>/dev/null)" ] && break; sleep 0.1; done  # (a /proc file reads as 0 bytes long: read it)
sleep 0.2
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && echo "ok:   SIGINT while registering: exit 130" || fail "SIGINT while registering: exit $rc"
said "stopped by a signal while loading the plug-in"

# --- State, caching and noise: the determinism check compares with the graded output.
graded stale "deterministic: re-executions give the graded bits" "in the worker that graded it, after the run \(it had seen every input\)"
for seed in 1 2 3 4 5 6 7 8 9 10; do
  "$kc" run --backend "plugin:$(lib noise)" --kernel exp --cases 20 --seed "$seed" --out "$work/noise$seed" >/dev/null 2>&1
  read -r passed failed < <(check_counts "$work/noise$seed/results.json" "deterministic")
  if [ "${failed:-0}" -gt 0 ]; then echo "ok:   noise, seed $seed: the determinism check fails ($failed of $((passed + failed)))"
  else fail "noise, seed $seed: the determinism check passed ($passed)"; fi
done

# --- Memory outside the buffers: named, at any distance up to a guard's 64 KiB.
graded oob_write "returns: no crash, abort, exception, hang or stray write" "out-of-bounds write: the kernel wrote at byte 255 past the end of output 0"
graded write_before "returns: no crash, abort, exception, hang or stray write" "out-of-bounds write: the kernel wrote at (byte 4|bytes 4 to 1) before the start of output 0"
graded oob_read "returns: no crash, abort, exception, hang or stray write" "out-of-bounds read: the kernel read at byte 3000 past the end of input 'x'"

# --- The floating-point environment is part of the contract; sqrt after it passes.
graded rounding "isolation: leaves the floating-point environment as it found it" "left the rounding mode toward \+inf \(MXCSR and x87\)"
graded ftz "isolation: leaves the floating-point environment as it found it" "left FTZ \(flush to zero\) set; left DAZ"
"$kc" run --backend "plugin:$(lib rounding)" --cases 20 -j 1 --out "$work/j1" >/dev/null 2>&1
"$kc" run --backend "plugin:$(lib rounding)" --cases 20 -j 2 --out "$work/j2" >/dev/null 2>&1
/usr/bin/python3 "$(dirname "$0")/same_results.py" "$work/j1/results.json" "$work/j2/results.json" >"$work/out" 2>&1 ||
  { fail "-j 1 and -j 2 differ"; cat "$work/out"; }

# --- Nothing outlives a call; kconform's output is never held.
graded fork "isolation: leaves no process or running thread behind" "left 1 process \(a copy of the worker made by fork\) running after the call returned; kconform killed"
start=$(date +%s)
"$kc" run --backend "plugin:$(lib fork)" --kernel exp --cases 20 | cat >/dev/null
[ $(($(date +%s) - start)) -lt 20 ] || fail "fork: kconform ... | cat waited for the kernel's process"
captured=$("$kc" run --backend "plugin:$(lib fork)" --kernel exp --cases 5 2>&1)
[ -n "$captured" ] || fail "fork: \$(kconform ...) captured nothing"
graded late_writer "returns: no crash, abort, exception, hang or stray write" "write after return: a thread wrote into output 0 after the call returned"
# The verdict is the same run after run: FAIL, every case whose call started
# the thread failing its isolation (a write after the return, caught by the
# read-only output; or, if a loaded machine keeps the thread from running
# for the whole watch, a thread left running), none passing.
for i in 1 2 3 4 5 6; do
  "$kc" run --backend "plugin:$(lib late_writer)" --kernel exp --cases 20 --out "$work/late$i" >/dev/null 2>&1
  /usr/bin/python3 - "$work/late$i/results.json" <<'PY' || fail "late writer, run $i: not the same verdict"
import json, sys
r = next(k for k in json.load(open(sys.argv[1]))["kernels"] if k["name"] == "exp")["results"][0]
assert r["verdict"] == "fail", r["verdict"]
checks = {c["name"]: c for c in r["checks"]}
returns = checks["returns: no crash, abort, exception, hang or stray write"]
left = checks["isolation: leaves no process or running thread behind"]
assert returns["failed"] + left["failed"] >= 18, (returns, left)
PY
done

# --- Bounded resources.
/usr/bin/time -f "%M" -o "$work/rss" "$kc" run --backend "plugin:$(lib leak)" --kernel exp --cases 20 --worker-memory-mb 300 \
  --out "$work/leak" >"$work/out" 2>&1
said "^PASS exp"
rss=$(tail -1 "$work/rss")
[ "$rss" -lt $((400 * 1024)) ] && echo "ok:   leak: the largest process stayed at $((rss / 1024)) MiB (cap 300 MiB + one call's 50)" ||
  fail "leak: a process reached $((rss / 1024)) MiB past the 300 MiB cap"
graded huge_output "returns: no crash, abort, exception, hang or stray write" "output request: the kernel asked alloc_output for dims \[1048576, 1048576\] \(1099511627776 elements"
graded overflow "returns: no crash, abort, exception, hang or stray write" "output request: the kernel asked alloc_output for dims \[1099511627776, 1099511627776, 4\], whose byte count overflows 64 bits"

expect 1 "an output the worker cannot map (3 GiB asked, the address space limited)" -- "$kc" run --backend "plugin:$(lib big_output)" --kernel exp --cases 5 --max-output-mb 8192
said "output request: alloc_output could not serve dims \[805306368\] \(3221225472 bytes\): cannot map [0-9]+ bytes: Cannot allocate memory"

# --- What a kernel prints is kept, never shown.
expect 0 "prints: the run passes" -- "$kc" run --backend "plugin:$(lib prints)" --cases 20 --out "$work/prints"
if grep -q "the kernel's own line" "$work/out"; then fail "the kernel's lines reached kconform's output"; fi
"$kc" run --backend "plugin:$(lib prints)" --cases 20 --quiet >"$work/out" 2>&1
if grep -q "the kernel's own line" "$work/out"; then fail "the kernel's lines reached kconform's output under --quiet"; fi
grep -q "FAIL exp f32 (the kernel&#39;s own line)\|FAIL exp f32 (the kernel's own line)" "$work/prints/site/kernel-exp.html" ||
  fail "the kernel's page does not show what it printed"

# --- Messages that say what happened.
graded close_fds "returns: no crash, abort, exception, hang or stray write" "lost connection: the kernel closed the worker's connection to kconform"
expect 2 "--timeout nan" -- "$kc" run --backend "plugin:$(lib prints)" --timeout nan
said "nan is not a number from 0.05 to 3600"
expect 0 "an expected failure with markup in its reason (XFAIL: exit 0)" -- "$kc" run --backend "plugin:$(lib xfail_html)" --cases 20 --out "$work/xf"
grep -q "Expected to fail: a &lt; b &amp; c\." "$work/xf/site/kernel-exp.html" || fail "the reason is not escaped exactly once"

# --- Signals stop promptly during a hung call; the hang is recorded as interrupted.
"$kc" run --backend "plugin:$hang" --timeout 3600 --out "$work/sig" >"$work/out" 2>&1 &
pid=$!
sleep 2
t0=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" -eq 130 ] && [ "$ms" -lt 1000 ] && echo "ok:   SIGINT during a hung call: exit 130 after $ms ms" ||
  fail "SIGINT during a hung call: exit $rc after $ms ms"
/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['run']['interrupted_by'] == 'SIGINT'
r = d['kernels'][0]['results'][0]
assert r['interrupted'] and any('stopped during case' in c['detail'] for c in r['checks']), r['checks']
" "$work/sig/results.json" || fail "the interrupted run's document does not say where it stopped"

echo "$fails failed"
[ "$fails" -eq 0 ]
