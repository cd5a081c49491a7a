#!/usr/bin/env bash
# Grades the reference and every library adapter this machine built
# (adapters/: glibc libm and libmvec, SLEEF u10/u35 scalar and vector,
# Eigen, oneDNN, libtorch, OpenBLAS, BLIS) at the default case counts, in one seed, and writes one site
# comparing them side by side (kconform report --compare) plus each run's
# results.json, and the reference's FKC precision audit and export.
# Usage: scripts/publish.sh [OUT]   (default: publish/)
# Exit 0 when the site was written (library failures are findings, not errors).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-publish}
seed=${KC_SEED:-1}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
kc="$root/build/kconform"
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
grade() {  # grade NAME [run options...]: a run's verdicts are findings; only an error (exit 2) stops
  local name=$1
  shift
  echo "grading $name"
  # (libtorch's system BLAS, OpenBLAS where installed, on one thread as torch
  # itself: its spinning pool in every fresh worker cost 20x the run's time.)
  local blas_threads=""
  [ "$name" = libtorch ] && blas_threads="OPENBLAS_NUM_THREADS=1"
  env $blas_threads "$kc" run --seed "$seed" --quiet --out "$runs/$name" "$@" | tail -1 || [ "${PIPESTATUS[0]}" -le 1 ]
}
grade reference
docs=("$runs/reference/results.json")
while IFS= read -r line; do
  case "$line" in
    *"not built"*) echo "skipped: $line" ;;
    *) grade "${line%%: *}" --backend "plugin:${line#*: }"; docs+=("$runs/${line%%: *}/results.json") ;;
  esac
  # libmvec also against its own documented bound and the OpenCL C table (docs/accuracy-tiers.md).
  if [[ "$line" == libmvec:\ /* ]]; then
    for tier in claimed opencl-full-profile; do
      grade "libmvec-$tier" --backend "plugin:${line#*: }" --accuracy "$tier"; docs+=("$runs/libmvec-$tier/results.json")
    done
  fi
done <"$root/build/adapters/adapters.txt"
"$kc" report "${docs[@]}" --compare --out "$runs/site"
# The reference's FKC precision claims against its own run (../shared/fkc/reference).
fkc_dir="${KC_FKC_REFERENCE_DIR:-$root/../shared/fkc/reference}"
if [ -d "$fkc_dir" ]; then
  "$kc" fkc audit "$fkc_dir"/*.fkc.md --results "$runs/reference/results.json" --json "$runs/site/fkc-audit.json" \
    >"$runs/site/fkc-audit.txt" || true
  "$kc" fkc export "$fkc_dir"/*.fkc.md --results "$runs/reference/results.json" --out "$runs/fkc-measured" >/dev/null
  tail -1 "$runs/site/fkc-audit.txt"
fi
rm -rf "$out.new"
mkdir -p "$out.new/results"
cp -r "$runs/site" "$out.new/site"
[ -d "$runs/fkc-measured" ] && cp -r "$runs/fkc-measured" "$out.new/fkc-measured"
for d in "${docs[@]}"; do cp "$d" "$out.new/results/$(basename "$(dirname "$d")").json"; done
rm -rf "$out" && mv "$out.new" "$out"
echo "wrote $out/site/index.html (${#docs[@]} backends), $out/results/ and $out/fkc-measured/"
