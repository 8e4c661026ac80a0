// Tuning a Linear layer's workload (weight stored [n, k], bias, GELU) with
// the stand-in runner: the key names its layout, operands and epilogue;
// failures are recorded, a winner is applied, and a second run is served
// from the database.
// RUN: rm -f %t.db
// RUN: tessel-opt %S/Inputs/linear-bias-gelu-tanh-512x256x128-f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary budget=12 seed=3 db=%t.db runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o %t.tuned.mlir 2> %t.log
// RUN: FileCheck %s --input-file=%t.log
// RUN: tessel-opt %S/Inputs/linear-bias-gelu-tanh-512x256x128-f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary budget=12 seed=3 db=%t.db runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CACHED
// RUN: tessel-db export %t.db -o %t.json
// RUN: FileCheck %s --check-prefix=DB --input-file=%t.json
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.tuned.mlir

// CHECK: [tune] matmul 512x256x128 f32->f32 acc=f32 layout=A[m,k],B[n,k] operands=f32[n] epilogue=addf 0 1;constant 0.7978845834732056;{{.*}};tanh 11;{{.*}} on Fake GPU (sm_90): 5 knobs, 1600 candidates
// CHECK-DAG: wrong-output
// CHECK-DAG: {{/12 ok +[0-9.]+ ms}}
// CHECK: [tune] winner:

// CACHED: 12 trials (0 measured, 12 from the database)
// CACHED: [tune] winner:

// DB: "workload": "matmul 512x256x128 f32->f32 acc=f32 layout=A[m,k],B[n,k] operands=f32[n] epilogue=addf 0 1;

// IR: tessel.schedule = {{{.*}}knob_source = "tuned by tessel-tune in
// IR-SAME: tessel.workload = {{{.*}}epilogue_operands = [{argument = 2 : i64, dims = ["n"]}]{{.*}}rhs_transposed = true}
