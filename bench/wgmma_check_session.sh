#!/usr/bin/env bash
# One device session for the wgmma schedule: unpack the bundle, check and
# time every ANCHORS.md shape in f16 and bf16 with the schedule's default
# knobs (tessel-run checks each output against a reference before timing
# it), and write the SASS report of 4096^3 f16. Results land in OUT.
#
#   bench/wgmma_check_session.sh OUT [KNOBS]
set -uo pipefail
out=$1; knobs=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
if [ ! -x /tmp/tessel/tessel/bin/tessel-opt ]; then
  mkdir -p /tmp/tessel && tar -xJf "$here/.bundle/tessel-bundle.tar.xz" -C /tmp/tessel
fi
T=/tmp/tessel/tessel/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
# bf16 inputs of the same shapes, generated from the package's template.
ex=/tmp/wgmma-examples; mkdir -p $ex
PYTHONPATH=$here/python python3 - "$ex" <<'PY'
import sys, pathlib
from tessel.workload import ANCHOR_SHAPES, matmul_relu_ir
for (m, n, k) in ANCHOR_SHAPES["f16"]:
    name = f"{m}" if m == n == k else f"{m}x{n}x{k}"
    for dt in ("f16", "bf16"):
        pathlib.Path(sys.argv[1], f"matmul_relu_{name}_{dt}.mlir").write_text(matmul_relu_ir(m, n, k, dt))
PY
# A hang (a lost mbarrier phase) must not eat the session: one shape first.
timeout 60 python3 "$here/bench/run_examples.py" --tools $T --chip sm_90a \
  --schedule "$here/schedules/matmul_relu_wgmma.mlir" ${knobs:+--knobs "$knobs"} \
  --examples $ex/matmul_relu_1024_f16.mlir --out "$out/first.json" > "$out/first.md" 2>&1
echo "first exit $?" >> "$out/first.md"
tail -4 "$out/first.md"
if grep -q "PASS" "$out/first.md"; then
  timeout 300 python3 "$here/bench/run_examples.py" --tools $T --chip sm_90a \
    --schedule "$here/schedules/matmul_relu_wgmma.mlir" ${knobs:+--knobs "$knobs"} \
    --examples $ex/*.mlir --out "$out/defaults.json" > "$out/defaults.md" 2> "$out/defaults.log"
  echo "exit $?" >> "$out/defaults.md"
  cat "$out/defaults.md"
fi
if command -v cuobjdump >/dev/null; then
  export CUDA_HOME=$(dirname "$(dirname "$(command -v ptxas)")")
  TESSEL=/tmp/tessel/tessel bash "$here/bench/sass_report.sh" $ex/matmul_relu_4096_f16.mlir \
    "$here/schedules/matmul_relu_wgmma.mlir" "${knobs:+knobs=$knobs}" sm_90a > "$out/sass.txt" 2>&1
  cat "$out/sass.txt"
fi
