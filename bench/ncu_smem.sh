#!/usr/bin/env bash
# Nsight Compute's view of where a large wgmma kernel's K loop is bound:
# the SM's pipes and the shared memory's bandwidth (docs/wgmma.md, "Where
# the large shapes' time goes"). .bundle/ab.tar.xz holds kernel
# directories under one set directory (as bench/clock_under_load.sh); on
# the device:   bash bench/ncu_smem.sh > OUT/ncu-smem.txt
here=$PWD; . bench/unpack_bundle.sh
rm -rf /tmp/ncs && mkdir -p /tmp/ncs && tar -xJf .bundle/ab.tar.xz -C /tmp/ncs
for j in /tmp/ncs/*/*/*.launch.json; do
  echo "=== $(basename "$(dirname "$j")")"
  ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables \
    --metrics smsp__inst_executed_pipe_tc.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg \
    -k regex:"matmul_relu_kernel" --launch-skip 3 --launch-count 1 --page details \
    $B/bin/tessel-run "$j" --reference=none --rep-ms=20 --warmup-ms=5 2>&1 | grep -v "^==PROF==" | sed -n '/matmul_relu_kernel/,$p'
done
