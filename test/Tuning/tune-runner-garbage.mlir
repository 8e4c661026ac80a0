// A measuring tool's result is recorded only when it makes sense: each
// time a positive, finite number of milliseconds with min <= median <= max,
// and "checked" and "passed" booleans, a pass only when both are true. Otherwise the candidate is a run-error, named
// with the field (a median of -1 ms was recorded as ok and won; "fast" was
// recorded as 0 ms). The fake runner's optimum (256 threads) is the one
// that misreports, so the winner has another block size.

// RUN: env FAKE_GARBAGE='median_ms=-1' tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=exhaustive budget=6 seed=1 runner=%S/Inputs/fake-runner.py timeout=30 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: env FAKE_GARBAGE='median_ms="fast"' tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=exhaustive budget=6 seed=1 runner=%S/Inputs/fake-runner.py timeout=30 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRING
// RUN: env FAKE_GARBAGE='checked="yes"' tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=exhaustive budget=6 seed=1 runner=%S/Inputs/fake-runner.py timeout=30 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKED
// RUN: env FAKE_GARBAGE='passed=1' tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=exhaustive budget=6 seed=1 runner=%S/Inputs/fake-runner.py timeout=30 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSED
// RUN: env FAKE_GARBAGE='passed=false' tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=exhaustive budget=6 seed=1 runner=%S/Inputs/fake-runner.py timeout=30 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSED-FALSE
// RUN: env FAKE_GARBAGE='min_ms=99' tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=exhaustive budget=6 seed=1 runner=%S/Inputs/fake-runner.py timeout=30 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER

// NEGATIVE: run-error {{.*}}invalid output of {{.*}}fake-runner.py: median_ms is -1, not a positive number of milliseconds
// NEGATIVE: [tune] winner:
// NEGATIVE-NOT: -1.0000 ms
// STRING: run-error {{.*}}median_ms is "fast", not a positive number of milliseconds
// CHECKED: run-error {{.*}}"checked" is not a boolean
// PASSED: run-error {{.*}}"passed" is not a boolean
// PASSED-FALSE: wrong-output
// PASSED-FALSE: [tune] winner:
// ORDER: run-error {{.*}}min_ms <= median_ms <= max_ms does not hold

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
