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

// A workload that was never tuned gets the rule's knobs, and says so...
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=%schedules/tuned/matmul_relu_simt-h200.json" \
// RUN:   | FileCheck %s --check-prefix=UNTUNED
// UNTUNED: knob_source = "rule (sm_90, 132 SMs)"
// ...or, with defaults=nearest, the knobs of the nearest tuned shape.
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=%schedules/tuned/matmul_relu_simt-h200.json defaults=nearest" \
// RUN:   | FileCheck %s --check-prefix=NEAREST
// NEAREST: knob_source = "nearest record: matmul_relu 2048x2048x2048 f32->f32 acc=f32 on NVIDIA H200 (sm_90) in {{.*}}matmul_relu_simt-h200.json"

// Records of another GPU of the same architecture apply (an H200's on an
// H100); a GPU of another architecture gets the rule.
// RUN: tessel-opt %examples/matmul_relu_4096_f32.mlir \
// RUN:   --tessel-apply-schedule='schedule=%schedules/matmul_relu_simt.mlir db=%schedules/tuned/matmul_relu_simt-h200.json device="NVIDIA H100 80GB HBM3 (sm_90)"' \
// RUN:   | FileCheck %s --check-prefix=SAME-ARCH
// SAME-ARCH: knob_source = "tuned on NVIDIA H200 (sm_90) (another sm_90 GPU) in {{.*}}matmul_relu_simt-h200.json"
// SAME-ARCH-SAME: knobs = {thread_m = 4 : i64, thread_n = 4 : i64, tile_k = 8 : i64, tile_m = 16 : i64, tile_n = 64 : i64}
// RUN: tessel-opt %examples/matmul_relu_4096_f32.mlir \
// RUN:   --tessel-apply-schedule='schedule=%schedules/matmul_relu_simt.mlir db=%schedules/tuned/matmul_relu_simt-h200.json device="NVIDIA A100-SXM4-80GB (sm_80)" chip=sm_80' \
// RUN:   | FileCheck %s --check-prefix=OTHER-ARCH
// OTHER-ARCH: knob_source = "rule (sm_80, 108 SMs)"

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
// RUN: tessel-opt %examples/matmul_relu_4096_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%t.changed.mlir db=%schedules/tuned/matmul_relu_simt-h200.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHANGED
// CHANGED: knob_source = "rule (sm_90, 132 SMs)"
