#!/usr/bin/env bash
# One device session (2026-11-26, bench/results/tuning-throughput/): the
# GPU lit tests but the knob sweeps (test/Runtime/reference-gpu.test among
# them), the tiled f64 GPU reference against the CPU one on three example
# shapes, where a tessel-run call's time goes (phases), then the pipelined
# tuner on GPU 0 alone and on both GPUs (64 and 160 trials of 4096^3 f16)
# and on one GPU (100 trials of 4096^3, 24 of 8192^3). Run from the
# checkout with the bundle (scripts/make-bundle.sh --with-tests) carried;
# writes $OUT/runs.tgz and $OUT/compare.txt.
#   bash bench/tuner_pipeline_session.sh
set -x
here=$(pwd); . bench/unpack_bundle.sh
export PATH=$B/bin:$PATH
nvidia-smi -L
$B/run-tests.sh -v --filter gpu --filter-out knob-sweep > $OUT/lit.log 2>&1; echo "lit exit $?"; tail -8 $OUT/lit.log
for ex in matmul_relu_1024_f16 matmul_relu_2048_f32 matmul_relu_256x1024x1024_f16; do
  d=/tmp/cmp/$ex; mkdir -p $d
  tessel-opt examples/$ex.mlir --tessel-apply-schedule="schedule=$B/schedules/matmul_relu_wgmma.mlir" --tessel-lower-to-ptx=chip=sm_90a --tessel-export-kernels=dir=$d -o /dev/null
  python3 test/Runtime/Inputs/compare-references.py tessel-run $d/matmul_relu.launch.json
done 2>&1 | tee $OUT/compare.txt
bash bench/tuning_throughput_session.sh $OUT/phases phases 2>&1 | tail -6
for b in 64 160; do GPUS_BUDGET=$b bash bench/tuning_throughput_session.sh $OUT/g$b gpus 2>&1 | tail -4; done
grep -H "time:" $OUT/g*/gpus-*.log
BUDGET=100 bash bench/tuning_throughput_session.sh $OUT/w worker 2>&1 | tail -4; grep -H "time:" $OUT/w/*.log
rm -f $OUT/*/*.db; cd $OUT && tar czf runs.tgz phases g64 g160 w lit.log compare.txt && rm -rf phases g64 g160 w lit.log
