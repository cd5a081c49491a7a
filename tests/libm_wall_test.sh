#!/usr/bin/env bash
# No CPU-dependent libm result on the grading side. glibc chooses much of
# libm by CPU at load time (FMA, AVX2 and SSE2 variants of exp, log, pow,
# sin, cos, ...; its IFUNC symbols and what they call) and runs x87's
# f2xm1, fyl2x and fyl2xp1 for the long double functions, whose last bits
# differ between Intel and AMD: a figure computed with them could differ
# between machines. So the object files of the grading libraries (and the
# CLI) may reference only the libm functions whose result IEEE 754 fixes
# exactly (sqrt, fabs, floor, fma, ldexp, ...: EXACT below), whatever code
# computes it; their transcendental values come from oracles/det_math.h.
# Every other libm symbol an object references must be allowed, with the
# reason, in tests/data/libm-allow-list.txt: the replays of the reference's
# own steps, and what provably never reaches a figure. An allow-list line
# that no object needs any more fails too, and so must an object planted
# with expl and tanh calls (the check can fail).
# Usage: libm_wall_test.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
allow="$src/tests/data/libm-allow-list.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

libm=$(ldconfig -p 2>/dev/null | awk '/libm\.so\.6 .*x86-64/ {print $NF; exit}')
[ -n "$libm" ] && [ -e "$libm" ] || libm=$(gcc -print-file-name=libm.so.6)
nm -D --defined-only "$libm" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$work/libm"
[ "$(wc -l <"$work/libm")" -ge 200 ] || { echo "FAIL: no symbols read from libm ($libm)"; exit 1; }

# The functions whose result is exact (or an integer, or a bit operation):
# the same on every CPU whatever code path computes them.
EXACT='^(sqrt|fabs|floor|ceil|trunc|round|roundeven|lround|llround|rint|lrint|llrint|nearbyint|fmod|remainder|remquo|modf|frexp|ldexp|scalbn|scalbln|ilogb|logb|copysign|nextafter|nexttoward|nextup|nextdown|fma|fmin|fmax|fdim|fminmag|fmaxmag|__finite|__isnan|__isinf|__signbit|__fpclassify|__issignaling|__iseqsig)(f|l|f32|f64|f32x|f64x|f128)?$'

# Whether the allow-list lets FILE call SYMBOL (lines: FILE SYMBOL... # why; FILE may hold *).
allowed() {
  awk -v f="$1" -v s="$2" '
      /^[[:space:]]*(#|$)/ {next}
      { sub(/#.*/, ""); pat = $1; gsub(/\./, "\\.", pat); gsub(/\*/, ".*", pat)
        if (f ~ ("^" pat "$")) for (i = 2; i <= NF; ++i) if ($i == s) found = 1 }
      END {exit !found}' "$allow"
}
# The libm references of the objects listed in $1, as "FILE SYMBOL" lines
# (one nm for them all: "OBJECT: U SYMBOL").
references() {
  xargs nm -u -A <"$1" 2>/dev/null | awk -v libm="$work/libm" '
      BEGIN { while ((getline s < libm) > 0) in_libm[s] = 1 }
      { obj = $1; sub(/:$/, "", obj); sym = $NF
        if (!(sym in in_libm)) next
        sub(/.*\/CMakeFiles\/[^/]*\.dir\//, "", obj); sub(/\.o$/, "", obj)
        if (!((obj, sym) in seen)) { seen[obj, sym] = 1; print obj, sym } }'
}
# Prints each reference neither exact nor allowed; returns 1 if any.
violations() {
  local bad=0 file sym
  while read -r file sym; do
    [[ $sym =~ $EXACT ]] && continue
    allowed "$file" "$sym" && continue
    echo "FAIL: $file calls libm's $sym, whose last bits depend on the CPU (use oracles/det_math.h, or allow it with its reason in tests/data/libm-allow-list.txt)"
    bad=1
  done <"$2"
  return $bad
}

# The grading side: every library left of the wall (CMakeLists.txt
# kc_check_wall's GRADING list) and the CLI.
find "$build/CMakeFiles" \( -path '*/kc_core.dir/*.o' -o -path '*/kc_oracles.dir/*.o' -o -path '*/kc_contracts.dir/*.o' \
  -o -path '*/kc_generators.dir/*.o' -o -path '*/kc_drivers.dir/*.o' -o -path '*/kc_grading.dir/*.o' \
  -o -path '*/kc_checks.dir/*.o' -o -path '*/kc_engine.dir/*.o' -o -path '*/kc_reports.dir/*.o' \
  -o -path '*/kc_fkc.dir/*.o' -o -path '*/kconform.dir/*.o' \) | sort >"$work/objects"
count=$(wc -l <"$work/objects")
# (a check that looked at nothing passes nothing)
[ "$count" -ge 100 ] || { echo "FAIL: only $count grading-side objects under $build/CMakeFiles"; exit 1; }
references "$work/objects" >"$work/refs"
[ -s "$work/refs" ] || { echo "FAIL: no libm reference found at all (nm?)"; exit 1; }
if violations "$work/objects" "$work/refs"; then
  echo "ok:   $count grading-side objects call no CPU-dependent libm function outside the allow-list ($(wc -l <"$work/refs") libm references)"
else
  status=1
fi

# Each allow-list line still names what an object calls: a stale entry
# would let a later call in unseen.
while read -r file syms; do
  for sym in $syms; do
    awk -v f="$file" -v s="$sym" 'BEGIN {pat = f; gsub(/\./, "\\.", pat); gsub(/\*/, ".*", pat)}
                                  $1 ~ ("^" pat "$") && $2 == s {found = 1} END {exit !found}' "$work/refs" ||
      { echo "FAIL: the allow-list lets $file call $sym, which no object calls any more"; status=1; }
  done
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$allow")
[ $status -eq 0 ] && echo "ok:   every allow-list entry is still needed"

# A planted call (long double exp, double tanh) in an oracle object is caught.
mkdir -p "$work/CMakeFiles/kc_oracles.dir/oracles"
planted="$work/CMakeFiles/kc_oracles.dir/oracles/planted.cpp.o"
printf '#include <cmath>\nlong double f(long double x) { return std::exp(x); }\ndouble g(double x) { return std::tanh(x); }\n' |
  c++ -O2 -fno-builtin -x c++ -c - -o "$planted"
echo "$planted" >"$work/planted"
references "$work/planted" >"$work/planted-refs"
if violations "$work/planted" "$work/planted-refs" >"$work/planted-out"; then
  echo "FAIL: planted calls of expl and tanh went unseen"; status=1
elif grep -q "oracles/planted.cpp calls libm's expl" "$work/planted-out" && grep -q "calls libm's tanh," "$work/planted-out"; then
  echo "ok:   planted calls of expl and tanh are caught"
else
  echo "FAIL: the planted calls gave:"; cat "$work/planted-out"; status=1
fi
exit $status
