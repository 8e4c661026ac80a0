#!/usr/bin/env bash
# Runs Tessel's test suite (lit + FileCheck): every pass, schedule and tool.
# Tests that need an NVIDIA GPU (REQUIRES: cuda-gpu) run only where lit
# finds one. Ends with a "N passed, N failed" line.
#
#   scripts/test.sh [lit args]      (after scripts/setup.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/llvm-22/bin:$PATH
ninja -C build tessel-opt tessel-run >/dev/null || exit 1
results=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv --output "$results" "$@" build/test
status=$?
python3 - "$results" <<'PY'
import collections, json, sys
codes = collections.Counter(t["code"] for t in json.load(open(sys.argv[1]))["tests"])
failed = sum(codes[c] for c in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"))
passed = codes["PASS"] + codes["XFAIL"]
skipped = codes["UNSUPPORTED"] + codes["EXCLUDED"]
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
rm -f "$results"
exit $status
