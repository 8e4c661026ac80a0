#!/usr/bin/env bash
# Device session for A stored [k, m] on every schedule (2026-11-27): the
# rule's, a persistent and a split-K wgmma kernel of run-a-km-gpu.test, the
# sweeps of knob-sweep-a-km-gpu.test and the GPU pytest of transposed
# views. On the GPU host, from the checkout, with the bundle carried:
#   OUT=/some/dir bash bench/a_km_session.sh [seconds for the sweeps]
set -uo pipefail
here=$PWD; . bench/unpack_bundle.sh
export B TESSEL_HOME=$B PYTHONPATH=$PWD/python PATH=$B/bin:$PATH
out=${OUT:?}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"; date -u >> "$out/device.txt"
I=test/Schedules/Inputs/matmul-relu-a-km-200x304x136-f16.mlir
S=$B/schedules/matmul_relu_wgmma.mlir
t=$(mktemp -d)
for v in "rule|" "persistent|knobs=tile_m=128,tile_n=256,stages=4,group_m=8,split_k=1,persistent=1,cluster=1" \
         "split|knobs=tile_m=64,tile_n=128,stages=3,group_m=1,split_k=2,persistent=0,cluster=1"; do
  name=${v%%|*}; knobs=${v#*|}
  tessel-opt $I --tessel-apply-schedule="schedule=$S $knobs" --tessel-lower-to-ptx=chip=sm_90a \
    --tessel-export-kernels=dir=$t/$name -o /dev/null || echo "run-a-km $name: compile failed"
  for ref in cpu gpu; do
    echo "run-a-km $name $ref: $(tessel-run $t/$name/matmul_relu.launch.json --reference=$ref 2>&1 | grep -E 'check:|error' | head -2)"
  done
done | tee "$out/run-a-km.log"
python3 bench/gpu_sweeps.py "$out/sweeps" --seconds "${1:-330}" --tests knob-sweep-a-km-gpu --match "" 2>&1 | tee "$out/sweeps.log"
python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py -k "transposed" 2>&1 | tail -15 | tee "$out/pytest.log"
