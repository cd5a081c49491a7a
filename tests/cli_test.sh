#!/usr/bin/env bash
# End-to-end checks of the kconform executable: exit codes (0 pass, 1
# contract failures, 2 usage or input error), that a printed replay command
# reproduces its failure, and the independent MPFR check of a published figure.
set -u
kc="$1"
independent="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"

expect 0 "help"                      -- "$kc" --help
expect 0 "run --help"                -- "$kc" run --help
expect 0 "list"                      -- "$kc" list
expect 0 "list --json"               -- "$kc" list --json
expect 0 "list --backends"           -- "$kc" list --backends
expect 2 "unknown subcommand"        -- "$kc" frobnicate
expect 2 "unknown kernel"            -- "$kc" run --kernel nope
expect 2 "unknown dtype"             -- "$kc" run --kernel exp --dtype f8
expect 2 "dtype the kernel rejects"  -- "$kc" run --kernel exp --dtype u32
expect 2 "unknown backend"           -- "$kc" run --kernel exp --backend mutant:nope
expect 2 "bad --input"               -- "$kc" run --kernel exp --dtype f32 --input zz
expect 2 "--shrink without --case"   -- "$kc" run --kernel exp --dtype f32 --shrink 1
expect 0 "reference exp f32 passes"  -- "$kc" run --kernel exp --dtype f32 --cases 20
expect 1 "a mutant fails"            -- "$kc" run --kernel exp --dtype f32 --backend mutant:exp_f32_2ulp

# The first replay command a failure prints reproduces it.
"$kc" run --kernel exp --dtype f32 --backend mutant:exp_f32_2ulp >"$work/mut" 2>&1
replay=$(grep -m1 '^  replay: ' "$work/mut" | sed 's/^  replay: *//')
case "$replay" in
  "kconform run "*) expect 1 "printed element replay reproduces: $replay" -- "$kc" ${replay#kconform } ;;
  *) echo "FAIL: no replay command printed"; fails=$((fails + 1)) ;;
esac
shrunk=$(grep -m1 'shrunk case: ' "$work/mut" | sed 's/.*shrunk case: *//')
case "$shrunk" in
  "kconform run "*) expect 1 "printed shrunk-case replay reproduces" -- "$kc" ${shrunk#kconform } ;;
  *) echo "FAIL: no shrunk case printed"; fails=$((fails + 1)) ;;
esac
expect 0 "replaying one passing case" -- "$kc" run --kernel exp --dtype f32 --case 3

# Same seed, same results.
"$kc" run --kernel sin --dtype f64 --cases 10 --out "$work/a" >/dev/null
"$kc" run --kernel sin --dtype f64 --cases 10 --out "$work/b" >/dev/null
if python3 - "$work/a/results.json" "$work/b/results.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda d: [(r["dtype"], r["elements"], r["accuracy"]["max_frac_ulp"], r["worst"][0]["input_hex"])
                   for k in d["kernels"] for r in k["results"]]
sys.exit(0 if strip(a) == strip(b) else 1)
PY
then echo "ok:   same seed gives the same results"; else echo "FAIL: same seed, different results"; fails=$((fails + 1)); fi

# Published max fractional ulp of f32 exp == an independent MPFR computation.
"$kc" run --kernel exp --dtype f32 --out "$work/exp" --dump "$work/elements.txt" >/dev/null
expect 0 "independent MPFR check of exp f32's max ulp" -- "$independent" "$work/exp/results.json" "$work/elements.txt"
cat "$work/out"

echo "$fails failed"
[ "$fails" -eq 0 ]
