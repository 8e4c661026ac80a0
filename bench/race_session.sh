#!/usr/bin/env bash
# One device session: unpack the bundle (scripts/make-bundle.sh --with-tests),
# run the Python package's tests on the GPU, then bench/race.py with the
# given arguments; everything lands in OUT (logs, race JSON/PNG).
#
#   bench/race_session.sh OUT [--skip-tests] [race.py args...]
set -uo pipefail
out=$1; shift
skip_tests=0
if [ "${1:-}" = "--skip-tests" ]; then skip_tests=1; shift; fi
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=/tmp/tessel/tessel
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)'
  python3 -c 'import pytest; print("pytest", pytest.__version__)' || echo "no pytest"
  python3 -c 'import matplotlib; print("matplotlib", matplotlib.__version__)' || echo "no matplotlib"
} > "$out/env.txt" 2>&1
if [ $skip_tests = 0 ]; then
  (cd "$here" && python3 -m pytest -p no:cacheprovider -q -rs python/tests) \
    > "$out/pytest-gpu.log" 2>&1
  echo "pytest exit $?" >> "$out/pytest-gpu.log"
  tail -3 "$out/pytest-gpu.log"
fi
python3 "$here/bench/race.py" --out "$out/race" "$@" > "$out/race.md" 2> "$out/race.log"
echo "race exit $?" >> "$out/race.log"
cat "$out/race.md"
tail -5 "$out/race.log"
