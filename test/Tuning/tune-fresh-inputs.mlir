// The two best candidates are re-measured on fresh inputs before one is
// kept; a kernel that is only right on the inputs it was tuned on is never
// the winner. Here (the stand-in runner) every 256-thread kernel is wrong
// on new inputs, and the two best both have 256 threads: no winner.

// RUN: not env FAKE_WRONG_ON_FRESH_INPUTS=256 tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary budget=40 seed=3 runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s
// CHECK: [tune] {{.*}} failed on fresh inputs: not a winner
// CHECK: error: tessel-tune: the two best candidates failed the check on fresh inputs; no verified winner

// Without the fault, the same search keeps a winner.
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary budget=40 seed=3 runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// OK-NOT: failed on fresh inputs
// OK: [tune] winner:
