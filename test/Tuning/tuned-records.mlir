// The tuning records committed in schedules/tuned/ (measured on an H200)
// drive --tessel-apply-schedule: 4096^3 f32 gets its tuned knobs
// (tile_m=16 tile_n=64 thread_m=4 thread_n=4: 64 x 256 blocks of 16 x 4
// threads). If the schedule changes, its content hash no longer matches and
// this test fails: re-tune, or the records would apply to another schedule.

// RUN: tessel-opt %examples/matmul_relu_4096_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=%schedules/tuned/matmul_relu_simt-h200.json" \
// RUN:   --cse | FileCheck %s
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c64, {{.*}} = %c256, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c16, {{.*}} = %c4, {{.*}} = %c1)

// knobs= still overrides a recorded value.
// RUN: tessel-opt %examples/matmul_relu_4096_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=%schedules/tuned/matmul_relu_simt-h200.json knobs=thread_n=8" \
// RUN:   --cse | FileCheck %s --check-prefix=OVERRIDE
// OVERRIDE: threads({{.*}}) in ({{.*}} = %c8, {{.*}} = %c4, {{.*}} = %c1)

// A workload that was never tuned is an error, not a silent default.
// RUN: not tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=%schedules/tuned/matmul_relu_simt-h200.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNTUNED
// UNTUNED: matmul_relu_1024_f32.mlir:4:1: error: tuning database '{{.*}}matmul_relu_simt-h200.json' has no records of 'matmul_relu 1024x1024x1024 f32->f32 acc=f32' for this schedule (content hash 0x{{[0-9a-f]+}}) and compiler (tessel 0.1.0, LLVM 22.1.{{[0-9]+}}): tune it first

// The key ignores knob options: a schedule with more (or fewer) values for
// a knob keeps its records...
// RUN: sed '/"thread_n"/{n;s/\[1, 2, 4, 8\]/[1, 2, 4, 8, 16]/}' %schedules/matmul_relu_simt.mlir > %t.more-options.mlir
// RUN: grep -q "\[1, 2, 4, 8, 16\]" %t.more-options.mlir
// RUN: tessel-opt %examples/matmul_relu_4096_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%t.more-options.mlir db=%schedules/tuned/matmul_relu_simt-h200.json" \
// RUN:   --cse | FileCheck %s
// ...but a schedule that does something else does not.
// RUN: sed 's/transform.apply_patterns.vector.cast_away_vector_leading_one_dim/transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n      transform.apply_patterns.linalg.tiling_canonicalization/' \
// RUN:   %schedules/matmul_relu_simt.mlir > %t.changed.mlir
// RUN: not tessel-opt %examples/matmul_relu_4096_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%t.changed.mlir db=%schedules/tuned/matmul_relu_simt-h200.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHANGED
// CHANGED: has no records of 'matmul_relu 4096x4096x4096 f32->f32 acc=f32' for this schedule
