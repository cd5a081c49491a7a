#!/usr/bin/env bash
# The test suite: install what is missing, build everything, run ctest (the
# default labels; nightly suites are excluded by label).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" -LE nightly
