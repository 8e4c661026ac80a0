#!/usr/bin/env bash
# Device session for swap-AB (wgmma knob swap_ab, 2026-11-27): the sweeps of
# knob-sweep-swap-ab-gpu.test, then bench/cases/swap-ab.json (swapped
# knob points against the rule's kernel and cuBLASLt's fused ReLU, every
# output checked). On the GPU host, from the checkout, with the bundle:
#   OUT=/some/dir bash bench/swap_ab_session.sh [seconds for the sweeps] [cases.json]
set -uo pipefail
here=$PWD; . bench/unpack_bundle.sh
export B TESSEL_HOME=$B PYTHONPATH=$PWD/python PATH=$B/bin:$PATH
out=${OUT:?}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"; date -u >> "$out/device.txt"
if [ "${1:-300}" != 0 ]; then
  python3 bench/gpu_sweeps.py "$out/sweeps" --seconds "${1:-300}" --tests knob-sweep-swap-ab-gpu --match "" 2>&1 | tee "$out/sweeps.log"
fi
python3 bench/compare_variants.py --cases "${2:-bench/cases/swap-ab.json}" --out "$out/swap-ab.json" 2>&1 | tail -80 | tee "$out/compare.log"
