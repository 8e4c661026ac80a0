#!/usr/bin/env bash
# On a GPU host with the bundle unpacked at $TESSEL (default /tmp/tessel):
# the whole lit suite (GPU tests included), every example with default
# knobs, and the tuned shapes with the committed H200 records; everything
# packed into OUT/gpu-check.tgz.
#   bench/gpu_check.sh OUT
set -uo pipefail
out=${1:?output directory}
T=${TESSEL:-/tmp/tessel}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/device.txt"
date -u >> "$out/device.txt"
"$T/run-tests.sh" -sv > "$out/lit.log" 2>&1; echo "lit exit: $?"
grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL)" "$out/lit.log" | sort | uniq -c | sort -rn | head -3
tail -6 "$out/lit.log"
python3 bench/run_examples.py --tools "$T/bin" --out "$out/defaults.json" > "$out/defaults.md" 2> "$out/defaults.log"
ex=""
for s in 2048_f16 4096_f16 4096_f32 2048_f32 16384x1024x4096_f16 16384x1024x4096_f32; do ex="$ex examples/matmul_relu_$s.mlir"; done
python3 bench/run_examples.py --tools "$T/bin" --examples $ex --db schedules/tuned/matmul_relu_simt-h200.json \
  --out "$out/tuned.json" > "$out/tuned.md" 2> "$out/tuned.log"
cat "$out/device.txt" "$out/defaults.md" "$out/tuned.md"
tar -C "$out" -czf /tmp/gpu-check.tgz . && mv /tmp/gpu-check.tgz "$out/gpu-check.tgz"
