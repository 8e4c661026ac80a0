#!/usr/bin/env bash
# One device session: partial tiles in all three schedules and the wgmma
# 64x64 knob point. Every kernel is checked by tessel-run against a float64
# reference (outputs poisoned with NaN first). Results land in OUT.
#
#   bench/partial_tiles_session.sh OUT
set -uo pipefail
out=$1
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
if [ ! -x /tmp/tessel/tessel/bin/tessel-opt ]; then
  mkdir -p /tmp/tessel && tar -xJf "$here/.bundle/tessel-bundle.tar.xz" -C /tmp/tessel
fi
T=/tmp/tessel/tessel/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
command -v compute-sanitizer >> "$out/env.txt" 2>&1
check() { timeout 280 python3 "$here/bench/check_shapes.py" --tools $T "$@"; }
odd=1000x1000x1000,77x1000x320,4096x4096x4000,64x4096x4096,16x4096x4096,1x8x8,8x8x8,200x136x72,520x392x200
echo "== wgmma, partial tiles"
check --chip sm_90a --schedule "$here/schedules/matmul_relu_wgmma.mlir" --shapes $odd \
  --dtypes f16,bf16 --knobs tile_m=128,tile_n=128,stages=4,group_m=8 \
  --knobs tile_m=64,tile_n=256,stages=3,group_m=1 --out "$out/wgmma.json" 2>&1 | tee "$out/wgmma.log" | tail -25
echo "== wgmma 64x64"
check --chip sm_90a --schedule "$here/schedules/matmul_relu_wgmma.mlir" \
  --shapes 4096x11008x4096,8192x3072x768,1024x1024x1024,2048x2048x512 --dtypes f16 \
  --knobs tile_m=64,tile_n=64,stages=4,group_m=8 --knobs tile_m=64,tile_n=64,stages=2,group_m=1 \
  --knobs tile_m=64,tile_n=128,stages=4,group_m=8 --knobs tile_m=128,tile_n=64,stages=4,group_m=8 \
  --out "$out/wgmma64.json" 2>&1 | tee "$out/wgmma64.log" | tail -25
echo "== mma.sync, partial tiles"
check --chip sm_90 --schedule "$here/schedules/matmul_relu_mma.mlir" --shapes $odd \
  --dtypes f16,bf16 --knobs tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=3,padding=8,group_m=8,stage_output=0 \
  --knobs tile_m=64,tile_n=64,tile_k=16,warp_m=32,warp_n=32,stages=2,padding=8,group_m=1,stage_output=1 \
  --out "$out/mma.json" 2>&1 | tee "$out/mma.log" | tail -25
echo "== SIMT, partial tiles"
check --chip sm_90 --schedule "$here/schedules/matmul_relu_simt.mlir" \
  --shapes $odd,7x13x5,1x1x1,997x1009x1013,2000x3000x1500 --dtypes f32,f16 \
  --knobs tile_m=64,tile_n=128,tile_k=8,thread_m=4,thread_n=8 \
  --knobs tile_m=32,tile_n=64,tile_k=16,thread_m=2,thread_n=4 \
  --out "$out/simt.json" 2>&1 | tee "$out/simt.log" | tail -25
