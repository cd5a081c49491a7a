#!/usr/bin/env bash
# The wall between spec and implementation holds, and its build check can
# fail: configuring with a grading library linked to the kernels
# (KC_BREAK_WALL_FOR_TEST) must stop with the wall's message; the grading
# folders include nothing from kernels/ or backends/.
# Usage: wall_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

if cmake -S "$src" -B "$tmp/build" -G Ninja -DKC_BREAK_WALL_FOR_TEST=ON -DBUILD_TESTING=OFF >"$tmp/log" 2>&1; then
  echo "FAIL: configuring with kc_oracles linked to kc_kernels succeeded"
  status=1
elif ! tr -s ' \n' ' ' <"$tmp/log" | grep -q "wall between spec and implementation is broken: grading library kc_oracles links kc_kernels"; then
  echo "FAIL: configure failed, but not with the wall's message:"
  cat "$tmp/log"
  status=1
else
  echo "ok: the broken wall stops the configure"
fi

# Includes: nothing on the grading side reaches the implementation.
hits=$(grep -rnE '#include +"(kernels|backends)/' "$src"/{core,contracts,generators,oracles,drivers,checks,engine,reports} || true)
if [ -n "$hits" ]; then
  echo "FAIL: the grading side includes the implementation:"
  echo "$hits"
  status=1
else
  echo "ok: no grading file includes kernels/ or backends/"
fi
exit $status
