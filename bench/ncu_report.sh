#!/usr/bin/env bash
# Nsight Compute's view of chosen kernels. .bundle/ab.tar.xz holds kernel
# directories (PTX and launch.json; bench/compare_builds.py prepare writes
# them as SET/CASE/BUILD); REGEX picks them by that path (default: all).
# Each kernel directory's last launch (its matmul: a misaligned operand's
# copy comes before it) is profiled once, at its fourth run. VIEW:
#   pipes   the SM's pipes and shared memory: where a K loop is bound
#           (docs/wgmma.md, "Where the large shapes' time goes")
#   stalls  the schedulers and why warps stall, per issued instruction
#           (bench/results/f32/README.md, "lo rounded")
# On the device:   bash bench/ncu_report.sh VIEW [REGEX] > OUT/ncu-VIEW.txt
set -uo pipefail
view=$1; pick=${2:-}
case $view in
  pipes)
    args=(--section SpeedOfLight --section ComputeWorkloadAnalysis
          --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables
          --metrics smsp__inst_executed_pipe_tc.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg) ;;
  stalls)
    args=(--section SpeedOfLight --section SchedulerStats --section WarpStateStats
          --section Occupancy --section LaunchStats
          --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__inst_executed.sum,smsp__cycles_active.avg) ;;
  *) echo "usage: bench/ncu_report.sh pipes|stalls [REGEX]" >&2; exit 2 ;;
esac
here=$PWD; . bench/unpack_bundle.sh
rm -rf /tmp/ncu-report && mkdir -p /tmp/ncu-report &&
  tar -xJf .bundle/ab.tar.xz -C /tmp/ncu-report || exit 1
find /tmp/ncu-report -name '*.launch.json' | sort | while read -r j; do
  name=$(dirname "${j#/tmp/ncu-report/}")
  [[ $name =~ $pick ]] || continue
  launches=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["launches"]))' "$j")
  echo "=== $name"
  ncu "${args[@]}" --launch-skip $((4 * launches - 1)) --launch-count 1 --page details \
    "$B/bin/tessel-run" "$j" --reference=none --rep-ms=20 --warmup-ms=5 2>&1 | grep -v "^==PROF=="
done
