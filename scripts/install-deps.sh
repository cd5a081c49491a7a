#!/usr/bin/env bash
# Installs the Debian 12 packages kconform builds and tests with, if any is
# missing. Run as root (or with sudo available). Nothing is downloaded from
# anywhere but Debian's archive.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache git pkg-config python3
  librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev
  libmpfr-dev libgmp-dev libboost-dev
  nlohmann-json3-dev libfmt-dev libcli11-dev libyaml-cpp-dev
  chromium clang libclang-rt-14-dev strace parallel bc universal-ctags
  libsleef-dev libeigen3-dev libdnnl-dev ocl-icd-opencl-dev libtorch-dev
  libopenblas-dev libblis-dev
)
# chromium: the report's browser test (ctest label "browser") renders the
# site headless and fails when it is missing. clang and its runtime: the
# readers' libFuzzer targets (scripts/sanitize.sh, ctest label "fuzz").
# strace: the reliability tests kill a run at each step of its final swap.
# parallel and bc: the campaign test runs deploy/parallel.sh and times a budget.
# universal-ctags: scripts/sizes.py finds the functions it measures (ctest unit.sizes).
# SLEEF, Eigen, oneDNN (with the OpenCL headers its CMake package requires)
# libtorch, OpenBLAS and BLIS: the libraries the adapters grade (adapters/, ctest label
# "adapters", scripts/publish.sh); a missing one is skipped at configure.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "installing: ${missing[*]}"
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
