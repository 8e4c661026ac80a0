// RUN: tessel-opt %S/../Runtime/Inputs/linear_chain_bias_silu_200x136x72_bf16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%S/Inputs/identity-schedule.mlir" | FileCheck %s
// RUN: tessel-opt %S/../Runtime/Inputs/linear_chain_bias_silu_200x136x72_bf16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" | FileCheck %s --check-prefix=WGMMA
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/identity-schedule.mlir" | FileCheck %s --check-prefix=SHARED

// Before a schedule runs, a chain of elementwise generics after the
// contraction (bias add, SiLU, conversion) becomes one generic that
// computes the chain's steps in order and writes the last one's
// destination; the intermediate destinations are gone. The workload is
// recognized from it (tessel-tune fuses the same way, so its records' key
// is this one).
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    tessel.workload = {{{.*}}epilogue = ["addf 0 1", "constant 1", "negf 2", "exp 4", "addf 5 3", "divf 2 6"]
// CHECK:         %[[MM:.+]] = linalg.matmul
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<200x136xf32>, tensor<136xbf16>) outs(%{{.+}} : tensor<200x136xbf16>)
// CHECK:           arith.extf
// CHECK:           arith.addf
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:           arith.truncf
// CHECK-NOT:     linalg.generic
// CHECK:         return

// The wgmma schedule then serves it.
// WGMMA-LABEL: func.func @chain(
// WGMMA:         nvgpu.warpgroup.mma
// WGMMA-NOT:     linalg.generic

// A generic whose result has another user stays: fusing it would compute
// it twice.
// SHARED-LABEL: func.func @shared(
// SHARED:         linalg.matmul
// SHARED-COUNT-2: linalg.generic
func.func @shared(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> (tensor<64x48xf32>, tensor<64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%acc : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e1 = tensor.empty() : tensor<64x48xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x48xf32>) outs(%e1 : tensor<64x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x48xf32>
  %twice = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%relu : tensor<64x48xf32>) outs(%c : tensor<64x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.addf %x, %x : f32
    linalg.yield %t : f32
  } -> tensor<64x48xf32>
  return %relu, %twice : tensor<64x48xf32>, tensor<64x48xf32>
}
