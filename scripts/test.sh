#!/usr/bin/env bash
# Runs Tessel's test suites: lit + FileCheck (every pass, schedule and tool),
# then the Python package's pytest suite. Tests that need an NVIDIA GPU
# (lit: REQUIRES: cuda-gpu; pytest: requires_gpu) run only where one is
# found. Ends with a "N passed, N failed, N skipped" line over both.
#
#   scripts/test.sh [lit args]      (after scripts/setup.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/llvm-22/bin:$PATH
ninja -C build tessel-db tessel-opt tessel-run TesselCAPI >/dev/null || exit 1
results=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv --output "$results" "$@" build/test
status=$?
# Debian's python3 (its pytest and torch packages), whatever else is on PATH.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
junit=$(mktemp)
"$py" -m pytest -q -p no:cacheprovider --junitxml="$junit" python/tests
pystatus=$?
"$py" - "$results" "$junit" <<'PY'
import collections, json, sys
import xml.etree.ElementTree as ET
codes = collections.Counter(t["code"] for t in json.load(open(sys.argv[1]))["tests"])
failed = sum(codes[c] for c in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"))
passed = codes["PASS"] + codes["XFAIL"]
skipped = codes["UNSUPPORTED"] + codes["EXCLUDED"]
print(f"lit:    {passed} passed, {failed} failed, {skipped} skipped")
suite = ET.parse(sys.argv[2]).getroot()
suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
total, pfail, perr, pskip = (int(suite.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
print(f"pytest: {total - pfail - perr - pskip} passed, {pfail + perr} failed, {pskip} skipped")
passed += total - pfail - perr - pskip
failed += pfail + perr
skipped += pskip
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
rm -f "$results" "$junit"
[ $status = 0 ] && [ $pystatus = 0 ]
