#!/usr/bin/env bash
# Builds the readers' libFuzzer targets with clang and fuzzes each for
# SECONDS (default 600) from the seed corpus in tests/fuzz/corpus/; fails
# on any crash, sanitizer report, leak or hang. SECONDS=0 replays the
# corpus only. With RUNS, the fuzzing is RUNS inputs from seed 1 instead:
# deterministic, so a CI run finds what the same command finds here.
# A crashing input is kept in $KC_FUZZ_ARTIFACTS (default
# /tmp/kc-fuzz-artifacts) to replay: BUILD_DIR/kc_fuzz_TARGET FILE.
# Usage: fuzz_test.sh BUILD_DIR [SECONDS [RUNS]]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1
seconds=${2:-600}
runs=${3:-}
artifacts=${KC_FUZZ_ARTIFACTS:-/tmp/kc-fuzz-artifacts}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export CCACHE_DIR="${CCACHE_DIR:-${HOME:-/tmp}/.cache/ccache}"
# Paths relative to the checkout: a clone elsewhere (CI's) reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$src}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$src/tests/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! cmake --build "$build" >"$work/build.log" 2>&1; then
  echo "FAIL: the fuzz targets do not build:"; tail -40 "$work/build.log"; exit 1
fi
status=0
for target in results_reader fkc_reader; do
  corpus="$work/$target"
  seeds=results
  [ "$target" = fkc_reader ] && seeds=fkc
  cp -r "$src/tests/fuzz/corpus/$seeds" "$corpus"  # new inputs go here, not into the repository
  args=(-timeout=20 -rss_limit_mb=4096 -max_len=2000000 -artifact_prefix="$work/")
  if [ -n "$runs" ]; then args+=(-seed=1 -runs="$runs")
  elif [ "$seconds" -gt 0 ]; then args+=(-max_total_time="$seconds")
  else args+=(-runs=0); fi
  if "$build/kc_fuzz_$target" "${args[@]}" "$corpus" >"$work/$target.log" 2>&1; then
    echo "ok: $target: $(grep -Eo 'stat::number_executed_units: [0-9]+|Done [0-9]+ runs' "$work/$target.log" | tail -1)"
  else
    echo "FAIL: $target found a crash:"
    tail -40 "$work/$target.log"
    mkdir -p "$artifacts"
    for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
      [ -e "$f" ] && cp "$f" "$artifacts/" && echo "kept: $artifacts/$(basename "$f")"
    done
    status=1
  fi
done
exit $status
