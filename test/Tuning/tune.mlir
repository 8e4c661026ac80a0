// The tuning pass end to end without a GPU: a stand-in for tessel-run
// (Inputs/fake-runner.py) times candidates by their launch shape and
// misbehaves on purpose for some (hang, SIGSEGV, CUDA error, wrong result).
// Every failure is recorded with its reason, the search goes on, the winner
// is applied, and a second run is served from the database.

// RUN: rm -f %t.db
// RUN: tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary start=defaults budget=40 seed=3 db=%t.db runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o %t.tuned.mlir 2> %t.log
// RUN: FileCheck %s --input-file=%t.log
// RUN: tessel-db export %t.db -o %t.json
// RUN: python3 %S/Inputs/check-db.py %t.json %t.log | FileCheck %s --check-prefix=DB

// A second run measures nothing and picks the same winner.
// RUN: tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary start=defaults budget=40 seed=3 db=%t.db runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CACHED

// --tessel-apply-schedule takes the database's best knobs: the same IR as
// the tuning pass left, but for how each names the knobs' source.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=%t.db" \
// RUN:   -o %t.applied.mlir
// RUN: sed 's/knob_source = "[^"]*", //' %t.tuned.mlir > %t.tuned.nosource.mlir
// RUN: sed 's/knob_source = "[^"]*", //' %t.applied.mlir > %t.applied.nosource.mlir
// RUN: diff %t.tuned.nosource.mlir %t.applied.nosource.mlir
// RUN: FileCheck %s --check-prefix=SOURCE --input-file=%t.tuned.mlir
// SOURCE: knob_source = "tuned by tessel-tune in {{.*}}.db"
// RUN: FileCheck %s --check-prefix=SOURCE-DB --input-file=%t.applied.mlir
// SOURCE-DB: knob_source = "tuned on Fake GPU (sm_90) in {{.*}}.db"
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.tuned.mlir

// Candidates the schedule would refuse are left out before compiling.
// CHECK: [tune] constraints: {{[0-9]+}} of 1600 candidates left, {{[0-9]+}} refused before compiling (e.g. {{.*}}threads per block (at most 1024))
// CHECK: [tune] matmul_relu 1024x1024x1024 f32->f32 acc=f32 on Fake GPU (sm_90): 5 knobs, 1600 candidates, strategy evolutionary, budget 40
// CHECK-DAG: timeout {{.*}}(killed after 10 s)
// CHECK-DAG: crash {{.*}}(Segmentation fault)
// CHECK-DAG: run-error {{.*}}CUDA_ERROR_ILLEGAL_ADDRESS
// CHECK-DAG: wrong-output {{.*}}(relative error 5.00e-01 > tolerance 1.0e-05, 0 NaN)
// CHECK-NOT: compile-error
// CHECK: 40 trials ({{[0-9]+}} measured, 0 from the database)
// CHECK: [tune] best candidates (verified against the reference):
// CHECK-NEXT: [tune]      1.0000 ms
// The finalists: the two best and the defaults (the rule's knobs). The stand-in
// runner has no noise and gives the defaults the best time too, so the tuned
// knobs are not faster by more than the noise: the defaults are kept.
// CHECK: [tune] re-measured 3 finalists on fresh inputs, 5 rounds each (noise 0.0%):
// CHECK-NEXT: [tune]      1.0000 ms {{.*}}  (best of the search)
// CHECK-NEXT: [tune]      1.0000 ms {{.*}}  (runner-up)
// CHECK-NEXT: [tune]      1.0000 ms [[DEFAULTS:.*]]  (the defaults)
// CHECK-NEXT: [tune] the tuned knobs are within the noise of the defaults (0.0% faster, noise 0.0%): keeping the defaults
// CHECK-NEXT: [tune] winner: [[DEFAULTS]]

// CACHED: 40 trials (0 measured, 40 from the database)
// CACHED-NOT: re-measured
// CACHED: [tune] winner:

// IR: gpu.launch
// IR-NOT: linalg.

// 40 trials and the defaults, measured only as a finalist (and the winner).
// DB: records 41
// DB-DAG: status crash
// DB-DAG: status ok
// DB-DAG: status run-error
// DB-DAG: status timeout
// DB-DAG: status wrong-output
// The fake runner's optimum: 256 threads and at least 132 blocks.
// DB: best threads 256 blocks>=132 True
// DB: selected 1
// DB: selected record = logged winner

func.func @matmul_relu(%A: tensor<1024x1024xf32>, %B: tensor<1024x1024xf32>,
                       %C: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1024x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                      outs(%acc : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1024x1024xf32>) outs(%C : tensor<1024x1024xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1024x1024xf32>
  return %relu : tensor<1024x1024xf32>
}
