#!/usr/bin/env bash
# The SM clock and board power while one kernel runs for seconds: whether
# the large wgmma kernels run below the maximum clock (the power limit).
# .bundle/ab.tar.xz holds kernel directories (PTX and launch.json) under
# one set directory; on the device:
#   bash bench/clock_under_load.sh OUT
set -uo pipefail
out=$1; mkdir -p "$out"
here=$PWD; . bench/unpack_bundle.sh
rm -rf /tmp/clk && mkdir -p /tmp/clk && tar -xJf .bundle/ab.tar.xz -C /tmp/clk
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/env.txt"
for j in /tmp/clk/*/*/*.launch.json; do
  name=$(basename "$(dirname "$j")")
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv,noheader -lms 100 > "$out/clock-$name.csv" &
  smi=$!
  sleep 1
  $B/bin/tessel-run "$j" --reference=none --rep-ms=6000 --warmup-ms=100 --json > "$out/run-$name.json" 2>&1
  sleep 1
  kill $smi
done
