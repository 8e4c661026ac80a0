#!/usr/bin/env bash
# Kept as run on 2026-11-25 (bench/results/f32/README.md): the kernels were
# compiled on the CPU into .bundle/exp/k by variants.py and carried.
# f32 3xTF32 bottleneck experiments: PTX variants timed by tessel-run, ncu on base.
set -uo pipefail
here=$(pwd); out=$OUT
. bench/unpack_bundle.sh
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $out/env.txt
E=$here/.bundle/exp/k
for v in base nohi nosplit oneprod noprod x3s2 tf32s3 tf32s6; do
  $B/bin/tessel-run --json --tolerance 1 --reference gpu --rep-ms 300 $E/$v/linear.launch.json > $out/$v.json 2>$out/$v.err
  python3 -c "import json,sys; r=json.load(open('$out/$v.json')); print('$v', r.get('median_ms'), r.get('tflops'), r.get('relative_error'))" || { echo $v FAILED; tail -3 $out/$v.err; }
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
for v in base tf32s3; do
  timeout 240 $NCU --clock-control none --set full -k regex:linear -c 1 -o $out/ncu-$v $B/bin/tessel-run --reference none --rep-ms 1 --warmup-ms 0 $E/$v/linear.launch.json > $out/ncu-$v.log 2>&1
  echo "ncu $v exit $?"
  $NCU -i $out/ncu-$v.ncu-rep --page details --csv > $out/ncu-$v-details.csv 2>&1
  $NCU -i $out/ncu-$v.ncu-rep --page source --csv --print-source sass > $out/ncu-$v-source.csv 2>&1
  ls -la $out/ncu-$v*
done
