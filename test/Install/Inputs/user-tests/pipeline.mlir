// A user's test of their lowering: Tessel's SIMT schedule, then PTX.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%tessel_schedules/matmul_relu_simt.mlir knobs=tile_m=32,tile_n=32" \
// RUN:   --tessel-lower-to-ptx | FileCheck %s

// CHECK-LABEL: func.func @matmul_relu
// CHECK:         gpu.launch_func @matmul_relu_kernel::@matmul_relu_kernel
// CHECK-SAME:      blocks in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:       gpu.binary @matmul_relu_kernel
// CHECK-SAME:    #gpu.object<#nvvm.target<O = 3, chip = "sm_90"
func.func @matmul_relu(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>,
                       %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x96xf32>) -> tensor<64x96xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>)
                      outs(%acc : tensor<64x96xf32>) -> tensor<64x96xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x96xf32>) outs(%C : tensor<64x96xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x96xf32>
  return %relu : tensor<64x96xf32>
}
