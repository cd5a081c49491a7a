#!/usr/bin/env bash
# The sanitizer suite (run by .ci/run after the test suite): an ASan+UBSan
# build in build-asan/ where every report is fatal (halt_on_error), then
# the unit, cli, report and reliability suites, a short run of every kernel
# and dtype, and the readers' fuzz targets over their seed corpus plus a
# minute of fuzzing. Passes only with zero sanitizer reports.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
export CCACHE_DIR="${CCACHE_DIR:-${HOME:-/tmp}/.cache/ccache}"
# Paths relative to the checkout: a clone elsewhere (CI's) reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
# Without the adapters: the libraries they load are not instrumented, and
# kconform's side of the plug-in ABI is exercised by the plug-in tests.
# -O1 -g1, as the sanitizers' authors advise: half the compile time of
# -O2 -g (campaign_command.cpp 20 s against 44 s here), line numbers kept in
# every report's frames.
flags="-O1 -g1 -DNDEBUG"
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKC_SANITIZE=ON -DKC_BUILD_ADAPTERS=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" >/dev/null
cmake --build "$root/build-asan"
# allow_user_segv_handler: a plug-in worker resets SIGSEGV to its default so
# that a crashing kernel kills it with the signal kconform reports (ASan
# would otherwise keep its own handler and turn the crash into exit 1).
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:allow_user_segv_handler=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd "$root/build-asan"
# On failure, each distinct sanitizer report's first lines again at the end:
# a long ctest log is often cut in the middle, where the reports are.
# The mutants' replay shares are left to the uninstrumented suite (they are
# 700 s of CPU here, half the suite): under ASan they would run the replay
# path that cli.end_to_end and the reliability tests already run, over the
# mutants' own test-only kernels.
if ! ctest --output-on-failure -j "$(nproc)" -L 'unit|cli|report|reliability' -LE mutants; then
  echo "sanitizer reports (first frames of each, from Testing/Temporary/LastTest.log):"
  grep -A8 -E 'runtime error:|ERROR: (AddressSanitizer|LeakSanitizer)' Testing/Temporary/LastTest.log | awk '!seen[$0]++' | head -120 || true
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
./kconform run --cases 5 --no-exhaustive --quiet --out "$out/all"
# 40,000 fuzzed inputs from seed 1 (about a minute): deterministic, so CI
# meets exactly the inputs this command meets on a developer's machine; the
# open-ended random search is the nightly ctest fuzz.readers.
"$root/tests/fuzz_test.sh" "$root/build-fuzz" 0 40000
echo "sanitizer suite: zero reports"
