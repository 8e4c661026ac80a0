// RUN: tessel-opt %s --split-input-file --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir defaults=rule" \
// RUN:   | FileCheck %s

// A decode layer whose weight, stored [n, k], has an odd number of rows
// (N = 5121) but rows of K = 4096 elements, 16-byte aligned: TMA reads it
// as it reads the weight of 5120 rows, and the knob rule sees the same
// operand, so both get the decode layers' pick (64x128 blocks, K split in
// two, a ring of 8). The rule once counted N for such a weight's
// alignment, as if its producers read it, and took 64x64 blocks with 6
// stages: 1.29x-1.35x slower on an H200 (docs/knob-rule.md, "Misaligned
// rows").

// CHECK-LABEL: func.func @decode_odd_n(
// CHECK-SAME:    knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 2 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 128 : i64}

func.func @decode_odd_n(%x: tensor<1x4096xbf16>, %w: tensor<5121x4096xbf16>, %y_out: tensor<1x5121xbf16>) -> tensor<1x5121xbf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x5121xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<1x5121xf32>) -> tensor<1x5121xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<1x4096xbf16>, tensor<5121x4096xbf16>)
      outs(%acc : tensor<1x5121xf32>) -> tensor<1x5121xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1x5121xf32>) outs(%y_out : tensor<1x5121xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %y = arith.maximumf %v, %fzero : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x5121xbf16>
  return %y : tensor<1x5121xbf16>
}

// -----

// CHECK-LABEL: func.func @decode_even_n(
// CHECK-SAME:    knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 2 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 128 : i64}

func.func @decode_even_n(%x: tensor<1x4096xbf16>, %w: tensor<5120x4096xbf16>, %y_out: tensor<1x5120xbf16>) -> tensor<1x5120xbf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x5120xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<1x5120xf32>) -> tensor<1x5120xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<1x4096xbf16>, tensor<5120x4096xbf16>)
      outs(%acc : tensor<1x5120xf32>) -> tensor<1x5120xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1x5120xf32>) outs(%y_out : tensor<1x5120xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %y = arith.maximumf %v, %fzero : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x5120xbf16>
  return %y : tensor<1x5120xbf16>
}
