// tessel.allow_tf32 is a flag that the schedules and the workload read by
// its presence: a value (even `false`) is refused at the function, before
// any schedule runs, rather than read as "allowed".
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" 2>&1 | FileCheck %s

// CHECK: allow-tf32-invalid.mlir:[[# @LINE + 1]]:1: error: 'tessel.allow_tf32' is a unit attribute (present: f32 inputs may be multiplied as TF32; absent: FP32-level accuracy), got false
func.func @linear(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>,
    %y_out: tensor<64x64xf32>) -> tensor<64x64xf32>
    attributes {tessel.allow_tf32 = false} {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>)
      outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%y_out : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %fzero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
