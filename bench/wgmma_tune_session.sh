#!/usr/bin/env bash
# Tunes the wgmma schedule on this GPU for ANCHORS.md's f16 shapes in one
# dtype through the Python package (tessel.tune_matmul_relu, i.e. the
# tessel-tune pass: every candidate compiled, run, checked, timed), into
# OUT/tuning-DTYPE.json.
#
#   bench/wgmma_tune_session.sh OUT DTYPE [BUDGET]
set -uo pipefail
out=$1; dtype=$2; budget=${3:-24}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
if [ ! -x /tmp/tessel/tessel/bin/tessel-opt ]; then
  mkdir -p /tmp/tessel && tar -xJf "$here/.bundle/tessel-bundle.tar.xz" -C /tmp/tessel
fi
export TESSEL_HOME=/tmp/tessel/tessel
shapes=$(PYTHONPATH=$here/python python3 -c 'from tessel.workload import ANCHOR_SHAPES; print(",".join("x".join(map(str, s)) for s in ANCHOR_SHAPES["f16"]))')
python3 "$here/bench/tune_shapes.py" --dtype "$dtype" --shapes "$shapes" \
  --budget "$budget" --db "$out/tuning-$dtype.json" > "$out/tune-$dtype.log" 2>&1
echo "exit $?" >> "$out/tune-$dtype.log"
cat "$out/tune-$dtype.log"
