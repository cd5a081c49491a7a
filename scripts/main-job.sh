#!/usr/bin/env bash
# The main job: install what is missing, build kconform, run the default
# conformance run of the reference backend (every kernel and dtype, every
# bf16/f16 input, 100 random cases for f32/f64) and write results.json and
# the HTML site to the folder given (default: results/).
# Exit code: 0 all pass, 1 contract failures found, 2 usage error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-results}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" kconform
"$root/build/kconform" run --seed "${KC_SEED:-1}" --out "$out" --quiet
