#!/usr/bin/env bash
# The sanitizer build (docs/reliability.md): installs Debian's clang-22 and
# libFuzzer, then builds the tools and the fuzz targets with ASan + UBSan
# in build-san/ (clang, -DTESSEL_SANITIZE=ON; without MPI, whose own
# allocations are not ours to check). Run scripts/setup.sh first
# (LLVM/MLIR and the build tools). Safe to run again.
#
#   scripts/setup-sanitizers.sh   # then: scripts/test-sanitizers.sh,
#                                 #       scripts/fuzz.sh replay
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TESSEL_SAN_BUILD:-build-san}

# libclang-rt-22-dev holds the ASan/UBSan runtimes; clang-22 does not pull
# it in (a fresh Debian 12 lacks it: the link failed without it).
packages=(clang-22 libclang-rt-22-dev libfuzzer-22-dev)
. scripts/install-packages.sh
install_packages "${packages[@]}"

export PATH=/usr/lib/llvm-22/bin:$PATH
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DTESSEL_SANITIZE=ON -DTESSEL_ENABLE_MPI=OFF
fi
ninja -C "$build" tessel-db tessel-opt tessel-run tessel-opt-fuzzer tessel-json-fuzzer
