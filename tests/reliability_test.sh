#!/usr/bin/env bash
# The hostile and unlucky users' probes (issue "No crash, no lost data, no
# false PASS"), each now a clear exit 2, a complete old or new output, or a
# correct verdict. Run as ctest `reliability.cli`; the probes of the engine
# and the readers are in tests/reliability_test.cpp.
# Usage: reliability_test.sh KCONFORM
set -u
kc="$1"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"

check() {  # check DESCRIPTION -- command...: the command must succeed
  local what=$1
  shift 2
  if "$@" >/dev/null 2>&1; then echo "ok:   $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
said() {  # said TEXT: the last expect's output contains TEXT
  if grep -qF -- "$1" "$work/out"; then echo "ok:   ... says: $1"; else
    echo "FAIL: the message lacks: $1"; sed 's/^/    /' "$work/out" | head -5; fails=$((fails + 1)); fi
}
# (A run that did not finish leaves its journal beside the old results, for
# --resume: cli/run_journal.h. The old pair itself must be untouched.)
same_tree() { diff -r -x journal "$1" "$2" >/dev/null; }
no_leftovers() { ! ls -A "$1" | grep -q '^\.kconform-staging-'; }
quick=(run --kernel exp --dtype f32 --cases 3)

# --- Lost data: outputs are checked before any work and never destroy what kconform did not write.
mkdir -p "$work/dl"
"$kc" "${quick[@]}" --out "$work/dl" --quiet >/dev/null
echo "my notes" >"$work/dl/notes.txt"
cp -r "$work/dl" "$work/dl.copy"
expect 2 "report dl/results.json --out dl" -- "$kc" report "$work/dl/results.json" --out "$work/dl"
said "contains the input"
check "... dl and notes.txt untouched" -- same_tree "$work/dl" "$work/dl.copy"
cp "$work/dl/results.json" "$work/same.json"
expect 2 "report same.json --out same.json" -- "$kc" report "$work/same.json" --out "$work/same.json"
check "... same.json untouched" -- cmp "$work/same.json" "$work/dl/results.json"
mkdir -p "$work/foreign" && echo x >"$work/foreign/mine.txt"
expect 2 "report into a foreign non-empty folder" -- "$kc" report "$work/same.json" --out "$work/foreign"
said "did not write"
check "... its file untouched" -- test -f "$work/foreign/mine.txt"

echo "a file" >"$work/afile"
start=$(date +%s)
expect 2 "run --out an existing file" -- "$kc" run --kernel exp --out "$work/afile"
said "not a folder"
check "... refused before the run (no PASS line, within 5 s)" -- bash -c "! grep -q PASS '$work/out' && [ \$(( \$(date +%s) - $start )) -lt 5 ]"
check "... the file untouched" -- grep -q "a file" "$work/afile"
expect 2 "run --out a path under a file" -- "$kc" "${quick[@]}" --out "$work/afile/sub"
expect 2 "run --out /dev/null" -- "$kc" "${quick[@]}" --out /dev/null
check "... /dev/null is still a device" -- test -c /dev/null
expect 2 "run --out a name over 255 bytes" -- "$kc" "${quick[@]}" --out "$work/$(printf 'n%.0s' $(seq 300))"
mkdir -p "$work/rj/results.json"
expect 2 "run --out a folder whose results.json is a folder" -- "$kc" "${quick[@]}" --out "$work/rj"
check "... that folder untouched" -- test -d "$work/rj/results.json"
# Unwritable: as root, permissions do not apply, so drop to nobody.
mkdir -p "$work/ro" && chmod 555 "$work/ro" && chmod 755 "$work"
as_user=()
if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
expect 2 "run --out in an unwritable folder" -- "${as_user[@]}" "$kc" "${quick[@]}" --out "$work/ro/out"
said "Permission denied"
expect 2 "run --dump into an unwritable folder" -- "${as_user[@]}" "$kc" "${quick[@]}" --dump "$work/ro/dump.txt"
expect 2 "run --dump /dev/null" -- "$kc" "${quick[@]}" --dump /dev/null
mkdir -p "$work/utf" && cd "$work/utf"
expect 2 "a command-line argument that is not UTF-8" -- "$kc" run --kernel exp --out "$(printf 'r\xff')"
said "not valid UTF-8"
check "... nothing left behind" -- test -z "$(ls -A "$work/utf")"
cd "$work"

# Full disk: every write is checked to the last byte; the previous output stays.
big=(run --kernel exp --dtype f32 --cases 20)
expect 2 "--dump on a full disk (ulimit -f 16 KB)" -- bash -c "trap '' XFSZ; ulimit -f 16; exec '$kc' ${big[*]} --dump '$work/full.txt' --quiet"
said "cannot write"
check "... no cut file and no temporary left" -- bash -c "! ls -A '$work' | grep -q 'full.txt'"
"$kc" "${big[@]}" --out "$work/keep" --quiet >/dev/null
cp -r "$work/keep" "$work/keep.copy"
results_kb=$(( $(stat -c %s "$work/keep/results.json") / 1024 + 1 ))
page_kb=$(( $(stat -c %s "$work/keep/site/kernel-exp.html") / 1024 ))
check "... setup: the kernel page is larger than results.json" -- test "$page_kb" -gt "$results_kb"
expect 2 "a full disk during the results write (ulimit -f 8 KB)" -- bash -c "trap '' XFSZ; ulimit -f 8; exec '$kc' ${big[*]} --seed 2 --out '$work/keep' --quiet"
said "kernel x dtype results pass"  # the summary comes before the write that fails
check "... the old results and site stay" -- same_tree "$work/keep" "$work/keep.copy"
check "... no staging folder left" -- no_leftovers "$work"
expect 2 "the disk fills while the site is written" -- bash -c "trap '' XFSZ; ulimit -f $(( (results_kb + page_kb) / 2 )); exec '$kc' ${big[*]} --seed 2 --out '$work/keep' --quiet"
check "... the old results and site stay" -- same_tree "$work/keep" "$work/keep.copy"
check "... no staging folder left" -- no_leftovers "$work"
grep -q "kernel x dtype results pass" "$work/out" && echo "ok:   a failure after the run still printed the summary" ||
  { echo "FAIL: no summary printed before the write error"; fails=$((fails + 1)); }

# Killed at the swap, or just after it: a complete old or new pair; the next run cleans up.
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
  strace -f -qq -o /dev/null -e trace=renameat2 -e inject=renameat2:signal=SIGKILL:when=1 \
    "$kc" "${big[@]}" --seed 3 --out "$work/keep" --quiet >/dev/null 2>&1
  check "SIGKILL at the swap: the old pair stays" -- same_tree "$work/keep" "$work/keep.copy"
  check "... the killed run left its staging folder" -- bash -c "ls -A '$work' | grep -q '^.kconform-staging-'"
  "$kc" "${quick[@]}" --out "$work/other" --quiet >/dev/null
  check "... the next run removes it" -- no_leftovers "$work"
  # The first unlinkat of a run without leftovers is the removal of the old contents, after the swap.
  strace -f -qq -o /dev/null -e trace=unlinkat -e inject=unlinkat:signal=SIGKILL:when=1 \
    "$kc" "${big[@]}" --seed 3 --out "$work/keep" --quiet >/dev/null 2>&1
  check "SIGKILL just after the swap: the new pair is whole" -- \
    bash -c "grep -q '\"seed\": 3' '$work/keep/results.json' && test -f '$work/keep/site/kernel-exp.html'"
  check "... the killed run left its staging folder" -- bash -c "ls -A '$work' | grep -q '^.kconform-staging-'"
  "$kc" "${quick[@]}" --out "$work/other" --quiet >/dev/null
  check "... the next run removes it" -- no_leftovers "$work"
else
  echo "FAIL: strace cannot trace here (scripts/install-deps.sh installs it)"; fails=$((fails + 1))
fi

# --- A killed run resumes: the journal keeps each finished result; --resume grades the rest and
# writes the document an uninterrupted run writes (run from another folder: the journal knows its own).
"$kc" run --family unary -j 1 --quiet --out "$work/whole" >/dev/null 2>&1
"$kc" run --family unary -j 1 --quiet --out "$work/killed" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(ls "$work/killed/journal" 2>/dev/null | grep -c '\.json$')" -ge 4 ] && break; sleep 0.1; done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
kept=$(ls "$work/killed/journal" | grep -c '^[a-z].*\.json$')
check "SIGKILL mid-run: the journal kept $kept finished results" -- test "$kept" -ge 3
expect 0 "kconform run --resume DIR (alone, from another folder)" -- bash -c "cd / && exec '$kc' run --resume '$work/killed' --quiet"
check "... the resumed document is the uninterrupted one" -- python3 "$(dirname "$0")/same_results.py" "$work/whole/results.json" "$work/killed/results.json"
check "... and the journal is gone" -- test ! -e "$work/killed/journal"
expect 2 "--resume with other options than the journal's" -- "$kc" run --family unary --dtype f32 --resume "$work/whole" --out "$work/whole"
said "there is no journal of a run there"
"$kc" run --family unary --dtype bf16 -j 1 --quiet --out "$work/other" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ -e "$work/other/journal/run.json" ] && break; sleep 0.1; done
kill -KILL "$pid"; wait "$pid" 2>/dev/null
expect 2 "--resume given other options than the journal's" -- "$kc" run --family unary --dtype f16 --out "$work/other" --resume "$work/other"
said "the journal is of a run with other options"

# --- Signals: stop at the next case boundary, write what was done, marked partial, exit 128 + N.
for sig in INT TERM HUP; do
  # (The log of the signal before goes too: the shell truncates the new one
  # only once the child runs, and its old PASS lines once signalled a run
  # that had not yet installed its handlers.)
  rm -rf "$work/sig" "$work/sig.log"
  "$kc" run --family unary --out "$work/sig" >"$work/sig.log" 2>&1 &
  pid=$!
  # Signalled once a first result is printed (a fixed wait was too short
  # under the sanitizers on a loaded machine: nothing printed yet), and
  # well before the family's last.
  for _ in $(seq 600); do grep -q '^PASS' "$work/sig.log" && break; sleep 0.1; done
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  if [ "$rc" -eq "$want" ]; then echo "ok:   SIG$sig: exit $rc"; else echo "FAIL: SIG$sig: exit $rc, expected $want"; fails=$((fails + 1)); fi
  check "... results so far written, marked interrupted" -- grep -q "\"interrupted_by\": \"SIG$sig\"" "$work/sig/results.json"
  check "... the site says partial" -- grep -q "Partial run" "$work/sig/site/index.html"
  check "... the lines already printed reached the pipe, and the summary" -- \
    bash -c "grep -q '^PASS' '$work/sig.log' && grep -q 'interrupted by SIG$sig' '$work/sig.log'"
done

# --- False PASS and silent acceptance: every argument is checked.
# The first index past the end, from what the run says its cases are.
last=$("$kc" run --kernel exp --dtype f32 --case 1000000 --out "$work/case-range" 2>&1 | sed -n 's/.*has cases 0 to \([0-9]*\).*/\1/p')
expect 0 "--case $last, the last case of the run" -- "$kc" run --kernel exp --dtype f32 --case "$last" --out "$work/case-last"
for c in $((last + 1)) 1000000 -1 2147483648 9223372036854775808; do
  expect 2 "--case $c outside the run" -- "$kc" run --kernel exp --dtype f32 --case "$c"
done
said "is not a case index"
expect 2 "--input wider than f32" -- "$kc" run --kernel exp --dtype f32 --input 0x1ffffffff
said "wider than f32"
expect 2 "--input wider than bf16" -- "$kc" run --kernel exp --dtype bf16 --input 0x12345
expect 0 "--input of the full width" -- "$kc" run --kernel exp --dtype bf16 --input 0xffff
expect 2 "seed 2^64" -- "$kc" "${quick[@]}" --seed 18446744073709551616
expect 2 "a negative seed" -- "$kc" "${quick[@]}" --seed -1
said "0 to 18446744073709551615"
expect 0 "seed 2^64 - 1" -- "$kc" "${quick[@]}" --seed 18446744073709551615 --quiet
expect 2 "an unknown --params name" -- "$kc" run --kernel powi --dtype f32 --input 0x3f800000 --params n=2,q=3
said "has no parameter 'q'"
expect 2 "a duplicate --params name" -- "$kc" run --kernel powi --dtype f32 --input 0x3f800000 --params n=2,n=3
expect 2 "--params without --input" -- "$kc" run --kernel powi --dtype f32 --params n=2
expect 2 "a real beyond f64 (1e999r)" -- "$kc" run --kernel add_scalar --dtype f32 --input 0x3f800000 --params c=1e999r
expect 2 "a parameter of the wrong kind" -- "$kc" run --kernel powi --dtype f32 --input 0x3f800000 --params n=2r
expect 2 "a missing parameter" -- "$kc" run --kernel powi --dtype f32 --input 0x3f800000
expect 0 "an explicit infinity is a parameter value" -- "$kc" run --kernel add_scalar --dtype f32 --input 0x3f800000 --params c=infr
expect 2 "selftest --cases -5" -- "$kc" selftest --cases -5
expect 2 "run --cases -1" -- "$kc" run --kernel exp --cases -1
expect 2 "an unknown subcommand" -- "$kc" frobnicate
said "unknown subcommand 'frobnicate'"
expect 0 "gelu f32 with one case: the bias check says it cannot judge" -- "$kc" run --kernel gelu --dtype f32 --case 3 --out "$work/gelu"
check "... and says so" -- grep -q "not graded: only" "$work/gelu/results.json"
expect 0 "powi bf16 x = -inf, n = -2^31: exact, within its bound" -- "$kc" run --kernel powi --dtype bf16 --input 0xff80 --params n=-2147483648
expect 0 "powi f32 n = 2^31 - 1" -- "$kc" run --kernel powi --dtype f32 --input 0x3f800001 --params n=2147483647

# --- Hostile report input: clear errors, never a crash.
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
open(f"{w}/nested-objects.json", "w").write('{"a":' * 100000 + "1" + "}" * 100000)
open(f"{w}/nested-arrays.json", "w").write("[" * 300000 + "]" * 300000)
doc = json.load(open(f"{w}/dl/results.json"))
r = doc["kernels"][0]["results"][0]
r["accuracy"]["histogram"] = {"edges": list(range(1000001)), "counts": [1] * 1000000}
json.dump(doc, open(f"{w}/million-bins.json", "w"))
doc = json.load(open(f"{w}/dl/results.json"))
doc["kernels"][0]["name"] = "\x1b[31mred\x1b[0m" + "k" * 300
doc["run"]["machine"] = "\x1b]0;title\x07"
json.dump(doc, open(f"{w}/hostile.json", "w"))
PY
expect 2 "report: 100k nested objects" -- "$kc" report "$work/nested-objects.json" --out "$work/s1"
said "nested deeper than"
expect 2 "report: 300k nested arrays" -- "$kc" report "$work/nested-arrays.json" --out "$work/s1"
expect 2 "report: a folder as input" -- "$kc" report "$work/dl" --out "$work/s1"
said "is a folder"
expect 2 "report: a folder as --baseline" -- "$kc" report "$work/same.json" --baseline "$work/dl" --out "$work/s1"
expect 2 "report: a million histogram bins" -- "$kc" report "$work/million-bins.json" --out "$work/s1"
said "more than the"
expect 0 "report: ESC bytes and a 300-byte kernel name" -- "$kc" report "$work/hostile.json" --out "$work/s2"
check "... no raw ESC or BEL in any page" -- bash -c "! grep -rlP '[\x1b\x07]' '$work/s2'"
check "... every page name short" -- bash -c "! ls '$work/s2' | awk 'length > 120' | grep -q ."

echo "$fails failure(s)"
exit $((fails > 0))
