// RUN: tessel-opt %s --split-input-file --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir defaults=rule" \
// RUN:   | FileCheck %s

// A K of at most 4 steps with misaligned rows (K = 62 and 66: A's rows of
// 124 and 132 bytes, B's of 14508 and 32458): a tile's time is mostly its
// epilogue. Where the output's rows are 4-byte aligned (N = 7254) the rule
// takes persistent blocks, which load the next tile during a tile's
// epilogue (1.18x at this shape on an H200, docs/knob-rule.md); where they
// are only 2-byte aligned (N = 16229) it does not (single-element stores:
// 0.71x; both kernels run one block per SM, by their registers).

// CHECK-LABEL: func.func @short_k_even_n(
// CHECK-SAME:    knob_source = "rule (sm_90, 132 SMs)", knobs = {{.*}}persistent = 1 : i64

func.func @short_k_even_n(%a: tensor<7968x62xf16>, %b: tensor<62x7254xf16>, %out: tensor<7968x7254xf16>) -> tensor<7968x7254xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<7968x7254xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<7968x7254xf32>) -> tensor<7968x7254xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<7968x62xf16>, tensor<62x7254xf16>)
      outs(%acc : tensor<7968x7254xf32>) -> tensor<7968x7254xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<7968x7254xf32>) outs(%out : tensor<7968x7254xf16>) {
  ^bb0(%v: f32, %o: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<7968x7254xf16>
  return %y : tensor<7968x7254xf16>
}

// -----

// CHECK-LABEL: func.func @short_k_odd_n(
// CHECK-SAME:    knob_source = "rule (sm_90, 132 SMs)", knobs = {{.*}}persistent = 0 : i64

func.func @short_k_odd_n(%a: tensor<2804x66xf16>, %b: tensor<66x16229xf16>, %out: tensor<2804x16229xf16>) -> tensor<2804x16229xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2804x16229xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<2804x16229xf32>) -> tensor<2804x16229xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<2804x66xf16>, tensor<66x16229xf16>)
      outs(%acc : tensor<2804x16229xf32>) -> tensor<2804x16229xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<2804x16229xf32>) outs(%out : tensor<2804x16229xf16>) {
  ^bb0(%v: f32, %o: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2804x16229xf16>
  return %y : tensor<2804x16229xf16>
}
