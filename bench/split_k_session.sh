#!/usr/bin/env bash
# One device session for wgmma's split-K (docs/wgmma.md,
# bench/results/split-k/): unpacks the bundle (scripts/make-bundle.sh
# --with-tests), then runs the steps named, in order, into OUT:
#   lit     the GPU lit tests but the knob sweeps
#   ssweep  knob-sweep-split-gpu.test (every split_k x block tile)
#   timing  bench/check_shapes.py times every split_k x tile_n at tile_m 64
#           and 128 (TILE_MS; 4 stages, group_m 1) on thin and small shapes
#           (SHAPES), f16,
#           each kernel checked against f64 first (one at a time)
#   race    bench/race.py: tessel (tuned records), tessel-rule (the rule's
#           knobs) and cuBLASLt's fused ReLU on ANCHORS.md's f16 and bf16
#           shapes, then on decode shapes (M = 1, 32, 128; N = K = 8192)
#
#   bench/split_k_session.sh OUT STEP...
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
W=$B/schedules/matmul_relu_wgmma.mlir
for step in "$@"; do
  case $step in
    lit)
      $B/run-tests.sh -v --filter gpu --filter-out knob-sweep > "$out/lit.log" 2>&1
      echo "lit exit $?" >> "$out/lit.log"; tail -12 "$out/lit.log" ;;
    ssweep)
      $B/run-tests.sh -v --filter knob-sweep-split-gpu > "$out/ssweep.log" 2>&1
      echo "ssweep exit $?" >> "$out/ssweep.log"; tail -8 "$out/ssweep.log" ;;
    timing)
      for tm in ${TILE_MS:-64 128}; do
        python3 "$here/bench/check_shapes.py" --tools $B/bin --chip sm_90a --schedule $W \
          --shapes ${SHAPES:-128x4096x4096,256x1024x1024,1024x1024x1024,4096x4096x1024,1x8192x8192,32x8192x8192,128x8192x8192,64x4096x4096} \
          --dtypes f16 --sweep --fix tile_m=$tm --fix stages=4 --fix group_m=1 \
          --rep-ms 50 --out "$out/timing-tm$tm.json" > "$out/timing-tm$tm.log" 2>&1
        echo "timing tile_m=$tm exit $?" | tee -a "$out/timing-tm$tm.log"
      done ;;
    race)
      python3 "$here/bench/race.py" --dtypes f16,bf16 \
        --contenders tessel,tessel-rule,cublaslt --out "$out/race" \
        > "$out/race.md" 2> "$out/race.log"
      echo "race exit $?" >> "$out/race.log"; cat "$out/race.md"
      python3 "$here/bench/race.py" --dtypes f16 \
        --shapes 1x8192x8192,32x8192x8192,128x8192x8192 \
        --contenders tessel,tessel-rule,cublaslt --out "$out/race-decode" \
        > "$out/race-decode.md" 2>> "$out/race.log"
      echo "race-decode exit $?" >> "$out/race.log"; cat "$out/race-decode.md"
      tail -3 "$out/race.log" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
