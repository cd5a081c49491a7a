#!/usr/bin/env bash
# The installable package, as a consumer uses it: `cmake --install` into a
# temporary prefix, then examples/consumer configured against it with
# find_package(kconform), built and its kconform_add_conformance_tests()
# ctests run (all pass: its neg and sqrt are correct). Then the same
# library through add_subdirectory(kconform), configured with GoogleTest and
# Google Benchmark made unfindable, to show a consumer needs neither.
set -u
build="$1" src="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)

expect 0 "install into a temporary prefix" -- cmake --install "$build" --prefix "$work/prefix"
for f in bin/kconform include/kconform/plugin.h include/kconform/core/backend.h lib/cmake/kconform/kconformConfig.cmake; do
  [ -e "$work/prefix/$f" ] || { echo "FAIL: $f not installed"; fails=$((fails + 1)); }
done
expect 0 "configure the consumer with find_package" -- cmake -S "$src/examples/consumer" -B "$work/consumer" "${gen[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
expect 0 "build the consumer" -- cmake --build "$work/consumer"
expect 0 "run the consumer's conformance tests" -- ctest --test-dir "$work/consumer" --output-on-failure
grep -q "100% tests passed, 0 tests failed out of 4" "$work/out" || { echo "FAIL: not 4 passing tests"; sed 's/^/    /' "$work/out"; fails=$((fails + 1)); }
# (Each graded its problem file's line at the model's size: the CLI's line says so.)
expect 0 "the consumer's tests grade its problem lines" -- ctest --test-dir "$work/consumer" -V -R "kconform.neg.f32"
grep -q "PASS neg .*; 38 tails, 1 problem line, largest \[512, 11008\]" "$work/out" ||
  { echo "FAIL: kconform.neg.f32 did not grade its problem lines"; sed 's/^/    /' "$work/out" | tail -5; fails=$((fails + 1)); }
expect 0 "the installed CLI lists the tests' kernels" -- ctest --test-dir "$work/consumer" -N
grep -q "kconform.sqrt.f64" "$work/out" || { echo "FAIL: no kconform.sqrt.f64 test"; fails=$((fails + 1)); }
expect 0 "the consumer's tests name their shapes (SHAPES layers.problems)" -- ctest --test-dir "$work/consumer" -N -V
grep -q -- '"--shapes" "[^"]*/examples/consumer/layers.problems"' "$work/out" ||
  { echo "FAIL: no --shapes <the consumer's problem file> in its tests"; fails=$((fails + 1)); }

mkdir -p "$work/sub"
cat >"$work/sub/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(sub LANGUAGES C CXX)
add_subdirectory("$src" kconform)
add_library(mykernels MODULE "$src/examples/consumer/mykernels.cpp")
target_link_libraries(mykernels PRIVATE kconform::core)
enable_testing()
kconform_add_conformance_tests(TARGET mykernels KERNELS neg DTYPES f32)
CM
expect 0 "configure with add_subdirectory, no GoogleTest or Google Benchmark" -- cmake -S "$work/sub" -B "$work/sub/build" \
  "${gen[@]}" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
expect 0 "build the library in-tree" -- cmake --build "$work/sub/build" --target mykernels
expect 0 "the in-tree test is defined" -- ctest --test-dir "$work/sub/build" -N
grep -q "kconform.neg.f32" "$work/out" || { echo "FAIL: no in-tree kconform.neg.f32 test"; fails=$((fails + 1)); }

echo "$fails failed"
[ "$fails" -eq 0 ]
