#!/usr/bin/env bash
# Installs what Tessel needs from Debian 12's packages and builds it in
# build/ (Ninja, lld, Release). Safe to run again: only missing packages are
# installed and the build is incremental.
#
#   scripts/setup.sh            # then: build/bin/tessel-opt --help
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ python3 ccache
          libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools lld-22
          # The tuning database; measuring on the ranks of an MPI job.
          libsqlite3-dev libopenmpi-dev openmpi-bin
          # The Python package's tests (CPU torch checks tensor arguments),
          # and its wheel, built offline and installed in a venv.
          python3-pytest python3-numpy python3-torch
          python3-venv python3-pip python3-setuptools python3-wheel)
. scripts/install-packages.sh
install_packages "${packages[@]}"

# gcc's -fuse-ld=lld finds ld.lld on PATH: make it LLVM 22's.
export PATH=/usr/lib/llvm-22/bin:$PATH
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C build tessel-db tessel-opt tessel-run TesselCAPI
