// RUN: tessel-opt %s --split-input-file --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir defaults=rule" \
// RUN:   | FileCheck %s

// Store-bound short K (docs/knob-rule.md, "Short K, odd N"): a 16-bit
// matmul of at most 4 K steps whose output rows are 2 bytes off 4-byte
// boundaries (odd N) stores single elements, and the rule ranks 64x128
// blocks first, not persistent, where they fill two waves or more: of at
// least 256 rows where the producers read or copy misaligned rows, of at
// least 1152 where TMA reads both operands. The rule before took one wave
// of the largest tiles (192x192 here), which ran 1.69x slower at
// 4660x13885x50 f16 on an H200, and persistent 128x192 for the Linear
// layer (1.55x slower at 5341x4083x64).

// CHECK-LABEL: func.func @odd_n_misaligned(
// CHECK-SAME:    knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 2 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 128 : i64}

func.func @odd_n_misaligned(%A: tensor<4660x50xf16>, %B: tensor<50x13885xf16>,
                       %C: tensor<4660x13885xf16>) -> tensor<4660x13885xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4660x13885xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4660x13885xf32>) -> tensor<4660x13885xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<4660x50xf16>, tensor<50x13885xf16>)
                      outs(%acc : tensor<4660x13885xf32>) -> tensor<4660x13885xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4660x13885xf32>) outs(%C : tensor<4660x13885xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4660x13885xf16>
  return %relu : tensor<4660x13885xf16>
}

// -----

// Even N: the output rows are 4-byte aligned, the class does not apply
// (64x128 blocks ran 0.72x-0.78x of the rule's on 7 such shapes).
// CHECK-LABEL: func.func @even_n(
// CHECK-SAME:    knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 2 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}

func.func @even_n(%A: tensor<4096x128xf16>, %B: tensor<128x8160xf16>,
                       %C: tensor<4096x8160xf16>) -> tensor<4096x8160xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096x8160xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096x8160xf32>) -> tensor<4096x8160xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<4096x128xf16>, tensor<128x8160xf16>)
                      outs(%acc : tensor<4096x8160xf32>) -> tensor<4096x8160xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4096x8160xf32>) outs(%C : tensor<4096x8160xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4096x8160xf16>
  return %relu : tensor<4096x8160xf16>
}

// -----

// A Linear layer of aligned rows (K = 64), odd N, 5341 rows.
// CHECK-LABEL: func.func @linear_odd_n(
// CHECK-SAME:    knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 2 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 128 : i64}

// y = relu(x @ W^T): x 5341x64, W stored nk (4083x64), f16, f32 accumulation.
func.func @linear_odd_n(%x: tensor<5341x64xf16>, %w: tensor<4083x64xf16>, %y_out: tensor<5341x4083xf16>) -> tensor<5341x4083xf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<5341x4083xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<5341x4083xf32>) -> tensor<5341x4083xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<5341x64xf16>, tensor<4083x64xf16>)
      outs(%acc : tensor<5341x4083xf32>) -> tensor<5341x4083xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<5341x4083xf32>) outs(%y_out : tensor<5341x4083xf16>) {
  ^bb0(%v: f32, %o: f16):
    %y = arith.maximumf %v, %fzero : f32
    %t = arith.truncf %y : f32 to f16
    linalg.yield %t : f16
  } -> tensor<5341x4083xf16>
  return %y : tensor<5341x4083xf16>
}

// -----

// ... and with 753 rows, fewer than 1152: the rule's persistent blocks
// (64x128 ran 0.67x-0.72x there).
// CHECK-LABEL: func.func @linear_odd_n_few_rows(
// CHECK-SAME:    knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 192 : i64}

// y = relu(x @ W^T): x 753x200, W stored nk (11877x200), f16, f32 accumulation.
func.func @linear_odd_n_few_rows(%x: tensor<753x200xf16>, %w: tensor<11877x200xf16>, %y_out: tensor<753x11877xf16>) -> tensor<753x11877xf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<753x11877xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<753x11877xf32>) -> tensor<753x11877xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<753x200xf16>, tensor<11877x200xf16>)
      outs(%acc : tensor<753x11877xf32>) -> tensor<753x11877xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<753x11877xf32>) outs(%y_out : tensor<753x11877xf16>) {
  ^bb0(%v: f32, %o: f16):
    %y = arith.maximumf %v, %fzero : f32
    %t = arith.truncf %y : f32 to f16
    linalg.yield %t : f16
  } -> tensor<753x11877xf16>
  return %y : tensor<753x11877xf16>
}
