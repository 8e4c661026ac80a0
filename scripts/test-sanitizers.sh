#!/usr/bin/env bash
# Runs the lit suite on the sanitizer build (build-san/, from
# scripts/setup-sanitizers.sh): every tessel-opt and tessel-run the tests
# start is the ASan + UBSan one, and any report fails its test.
#
#   scripts/test-sanitizers.sh [lit args]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${TESSEL_SAN_BUILD:-build-san}
export PATH=/usr/lib/llvm-22/bin:$PATH
# halt_on_error: a UBSan report is an error exit, not a message that a
# CHECK line might ignore. Leak checks on (the default).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}
ninja -C "$build" tessel-db tessel-opt tessel-run >/dev/null || exit 1
/usr/lib/llvm-22/bin/lit -sv "$@" "$build/test"
