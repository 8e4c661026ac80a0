#!/usr/bin/env bash
# Nsight Compute's warp-state view (why warps stall) of chosen kernels:
# .bundle/ab.tar.xz holds kernel directories (bench/compare_builds.py
# prepare, one set directory); the argument picks them by a regular
# expression on "CASE/BUILD". On the device:
#   bash bench/ncu_stalls.sh 'x3-256x1024x1024-relu/b-new$' > OUT/ncu-stalls.txt
here=$PWD; . bench/unpack_bundle.sh
rm -rf /tmp/ncw && mkdir -p /tmp/ncw && tar -xJf .bundle/ab.tar.xz -C /tmp/ncw
for j in /tmp/ncw/*/*/*/*.launch.json; do
  kernel_dir=$(dirname "$j")
  name="$(basename "$(dirname "$kernel_dir")")/$(basename "$kernel_dir")"
  [[ $name =~ $1 ]] || continue
  echo "=== $name"
  ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section LaunchStats \
    --metrics smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__cycles_active.avg,sm__cycles_elapsed.avg,gpu__time_duration.sum \
    --launch-skip 3 --launch-count 1 --page details \
    $B/bin/tessel-run "$j" --reference=none --rep-ms=20 --warmup-ms=5 2>&1 | grep -v "^==PROF=="
done
