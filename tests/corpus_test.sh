#!/usr/bin/env bash
# The regression corpus: a campaign stores each distinct shrunk failure once
# (a second campaign finds the same ones already stored); a stored case
# replays to its recorded outcome, fails when the defect is gone, and a
# corrupt or unreadable file is exit 2 naming the file and the line.
set -u
kc="$1"
corpus="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"

args=(--backend mutant:exp_f32_2ulp -k exp -d f32 --profile reference --batches 1 --cases 30)
expect 1 "a campaign against a mutant, storing its failures" -- "$kc" campaign "${args[@]}" --seed 3 --out "$work/c1" --corpus "$work/corpus" -q
grep -q "1 new case, 0 failures already stored" "$work/out" && echo "ok:   one new case stored" || { echo "FAIL: store"; cat "$work/out"; fails=$((fails + 1)); }
case_file=$(find "$work/corpus" -name '*.case' | head -1)
expect 1 "the same campaign again (another seed)" -- "$kc" campaign "${args[@]}" --seed 4 --out "$work/c2" --corpus "$work/corpus" -q
grep -q "0 new cases, 1 failure already stored" "$work/out" && echo "ok:   the same failure is not stored twice" || { echo "FAIL: dedup"; cat "$work/out"; fails=$((fails + 1)); }
grep -q "^input x f32 \[" "$case_file" && grep -q "^  0x" "$case_file" && echo "ok:   the file holds the exact input bits" || { echo "FAIL: no bits"; fails=$((fails + 1)); }
expect 0 "its replay: still fails as recorded" -- "$kc" corpus replay "$case_file"
# The defect fixed: the same bits on the reference backend no longer fail.
sed 's/^backend: .*/backend: reference/' "$case_file" > "$work/fixed.case"
expect 1 "the case against a backend without the defect (expect: fail) is a regression" -- "$kc" corpus replay "$work/fixed.case"
sed -i 's/^expect: fail/expect: pass/' "$work/fixed.case"
expect 0 "... and passes once marked expect: pass" -- "$kc" corpus replay "$work/fixed.case"

# Corrupt files: exit 2, the file and the line named.
bad() {  # bad DESCRIPTION SED-EXPRESSION EXPECTED-LINE
  sed "$2" "$case_file" > "$work/bad.case"
  "$kc" corpus replay "$work/bad.case" >"$work/out" 2>&1
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -q "bad.case:$3:" "$work/out"; then echo "ok:   $1 (exit 2, line $3)"; else
    echo "FAIL: $1: exit $rc"; cat "$work/out"; fails=$((fails + 1)); fi
}
line_of() { grep -n "$1" "$case_file" | head -1 | cut -d: -f1; }
bad "an unknown kernel" 's/^kernel: .*/kernel: nosuch/' "$(line_of '^kernel:')"
bad "a bit pattern too wide" 's/^  0x\([0-9a-f]*\)/  0x1\1/' "$(line_of '^  0x')"
bad "a value that is not hex" 's/^  0x[0-9a-f]*/  12/' "$(line_of '^  0x')"
bad "a missing value" '/^  0x/d' "$(($(wc -l < "$case_file") - 1))"
bad "an unknown key" 's/^found:/founded:/' "$(line_of '^found:')"
bad "another format" 's/^format: .*/format: kconform-corpus\/9/' "$(line_of '^format:')"
bad "a bad shape" 's/^input x f32 \[.*\]/input x f32 [2,/' "$(line_of '^input x')"
printf '\xff\xfe garbage\n' > "$work/garbage.case"
expect 2 "a file that is not a case" -- "$kc" corpus replay "$work/garbage.case"
expect 2 "no such file" -- "$kc" corpus replay "$work/none.case"

# The repository's corpus: every stored case meets its outcome.
expect 0 "the repository corpus replays ($(find "$corpus" -name '*.case' | wc -l) cases)" -- "$kc" corpus replay "$corpus" -q

[ "$fails" -eq 0 ] && echo "all corpus checks pass" || echo "$fails failure(s)"
[ "$fails" -eq 0 ]
