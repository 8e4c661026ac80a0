#!/usr/bin/env bash
# On a GPU host with the bundle unpacked at $TESSEL (default /tmp/tessel):
# records an exhaustive tuning database for one shape (the replay input of
# CI's tuner tests and of bench/compare_strategies.py), then checks the
# tuner survives planted bad candidates and kill -9.
#   bench/tune_record.sh OUT_DIR
set -uo pipefail
out=${1:?output directory}
T=${TESSEL:-/tmp/tessel}/bin
S=schedules/matmul_relu_simt.mlir
mkdir -p "$out"

# 1. Exhaustive: every candidate of the SIMT space, 2048^3 f16.
time "$T/tessel-opt" examples/matmul_relu_2048_f16.mlir \
  --tessel-tune="schedule=$S strategy=exhaustive budget=100000 db=$out/exhaustive-2048-f16.json warmup-ms=10 rep-ms=40 timeout=30" \
  -o /dev/null 2> "$out/exhaustive.log"
tail -12 "$out/exhaustive.log"

# 2. Planted faults: an illegal address, a hang, a wrong result.
"$T/tessel-opt" examples/matmul_relu_1024_f32.mlir \
  --tessel-tune="schedule=$S strategy=random budget=24 seed=7 db=$out/faults.json warmup-ms=5 rep-ms=20 timeout=10 inject-faults=tile_m=32:illegal-address;tile_n=32:hang;thread_m=1:wrong" \
  -o /dev/null 2> "$out/faults.log"
echo "faults run exit: $?"
grep -E "run-error|timeout|wrong-output|crash|winner" "$out/faults.log" | head -12

# 3. kill -9 mid-run leaves a valid database.
"$T/tessel-opt" examples/matmul_relu_1024_f32.mlir \
  --tessel-tune="schedule=$S strategy=random budget=500 db=$out/killed.json warmup-ms=5 rep-ms=20" \
  -o /dev/null 2> "$out/killed.log" & pid=$!
sleep 8; kill -9 $pid; wait $pid
python3 -c "import json,sys; d=json.load(open('$out/killed.json')); print('after kill -9: valid database with', len(d['records']), 'records')"
