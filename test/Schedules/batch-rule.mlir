// RUN: tessel-opt %s --split-input-file --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir defaults=rule" \
// RUN:   | FileCheck %s

// The rule counts every batch element's blocks: 16 batch elements of
// 1024^3 f16 fill the GPU with 128x256 tiles (512 blocks, persistent: about
// 4 per SM) in groups of 8, where one 1024^3 alone gets 128x64 tiles (128
// blocks, one wave).

// CHECK-LABEL: func.func @bmm(
// CHECK-SAME:    knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}
// CHECK-SAME:    batch = [16]
func.func @bmm(%a: tensor<16x1024x1024xf16>, %b: tensor<16x1024x1024xf16>, %out: tensor<16x1024x1024xf16>) -> tensor<16x1024x1024xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x1024x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x1024x1024xf32>) -> tensor<16x1024x1024xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<16x1024x1024xf16>, tensor<16x1024x1024xf16>)
      outs(%acc : tensor<16x1024x1024xf32>) -> tensor<16x1024x1024xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm : tensor<16x1024x1024xf32>) outs(%out : tensor<16x1024x1024xf16>) {
  ^bb0(%v: f32, %o: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x1024x1024xf16>
  return %y : tensor<16x1024x1024xf16>
}

// -----

// CHECK-LABEL: func.func @mm(
// CHECK-SAME:    knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}
func.func @mm(%a: tensor<1024x1024xf16>, %b: tensor<1024x1024xf16>, %out: tensor<1024x1024xf16>) -> tensor<1024x1024xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1024x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<1024x1024xf16>, tensor<1024x1024xf16>)
      outs(%acc : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1024x1024xf32>) outs(%out : tensor<1024x1024xf16>) {
  ^bb0(%v: f32, %o: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1024x1024xf16>
  return %y : tensor<1024x1024xf16>
}
