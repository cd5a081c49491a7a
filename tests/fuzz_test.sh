#!/usr/bin/env bash
# Builds the readers' libFuzzer targets with clang and fuzzes each for
# SECONDS (default 600) from the seed corpus in tests/fuzz/corpus/; fails
# on any crash, sanitizer report, leak or hang. SECONDS=0 replays the
# corpus only. Usage: fuzz_test.sh BUILD_DIR [SECONDS]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1
seconds=${2:-600}
export CCACHE_DIR="${CCACHE_DIR:-${HOME:-/tmp}/.cache/ccache}"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$src/tests/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >/dev/null
cmake --build "$build" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for target in results_reader; do
  corpus="$work/$target"
  cp -r "$src/tests/fuzz/corpus/results" "$corpus"  # new inputs go here, not into the repository
  args=(-timeout=20 -rss_limit_mb=4096 -max_len=2000000 -artifact_prefix="$work/")
  if [ "$seconds" -gt 0 ]; then args+=(-max_total_time="$seconds"); else args+=(-runs=0); fi
  if "$build/kc_fuzz_$target" "${args[@]}" "$corpus" >"$work/$target.log" 2>&1; then
    echo "ok: $target: $(grep -Eo 'stat::number_executed_units: [0-9]+|Done [0-9]+ runs' "$work/$target.log" | tail -1)"
  else
    echo "FAIL: $target found a crash:"
    tail -40 "$work/$target.log"
    ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null || true
    status=1
  fi
done
exit $status
