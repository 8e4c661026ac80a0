// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// Tile sizes that divide the loop ranges (0 = not tiled, sizes beyond the
// loop count ignored) pass, and the payload is not changed.

// CHECK-LABEL: func.func @divides
// CHECK-NEXT:    linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x32xf32>, tensor<32x128xf32>) outs(%{{.+}} : tensor<64x128xf32>)
// CHECK-NEXT:    return
func.func @divides(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-remark@below {{all sizes divide}}
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>)
                     outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> = 64 : i64 from options = [32, 64] -> !transform.param<i64>
    %tn = transform.param.constant 0 : i64 -> !transform.param<i64>
    %tk = transform.param.constant 8 : i64 -> !transform.param<i64>
    %extra = transform.param.constant 7 : i64 -> !transform.param<i64>
    transform.tessel.check_tile_sizes %mm by %tm, %tn, %tk, %extra
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>,
          !transform.param<i64>, !transform.param<i64>
    transform.debug.emit_remark_at %mm, "all sizes divide" : !transform.any_op
    transform.yield
  }
}

// -----

// Sizes that leave partial tiles (1000 = 15 * 64 + 40, 1000 = 7 * 128 +
// 104, a K tile of 48 for K = 1000) and a size larger than its range pass
// too: the schedules handle the edges.

// CHECK-LABEL: func.func @partial
// CHECK-NEXT:    linalg.matmul
func.func @partial(%a: tensor<1000x1000xf16>, %b: tensor<1000x7xf16>, %c: tensor<1000x7xf32>) -> tensor<1000x7xf32> {
  // expected-remark@below {{partial tiles pass}}
  %0 = linalg.matmul ins(%a, %b : tensor<1000x1000xf16>, tensor<1000x7xf16>)
                     outs(%c : tensor<1000x7xf32>) -> tensor<1000x7xf32>
  return %0 : tensor<1000x7xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> = 64 : i64 from options = [64, 128] -> !transform.param<i64>
    %tn = transform.param.constant 128 : i64 -> !transform.param<i64>
    %tk = transform.param.constant 48 : i64 -> !transform.param<i64>
    transform.tessel.check_tile_sizes %mm by %tm, %tn, %tk
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>,
          !transform.param<i64>
    transform.debug.emit_remark_at %mm, "partial tiles pass" : !transform.any_op
    transform.yield
  }
}

// -----

// Every op of the handle is checked; an empty size list checks nothing.

// CHECK-LABEL: func.func @all_targets
func.func @all_targets(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x16xf32>,
                       %d: tensor<32x8xf32>, %e: tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<32x16xf32>) {
  // expected-remark@below {{checked}}
  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>)
                     outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-remark@below {{checked}}
  %1 = linalg.matmul ins(%d, %b : tensor<32x8xf32>, tensor<8x16xf32>)
                     outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0, %1 : tensor<16x16xf32>, tensor<32x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %t = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.tessel.check_tile_sizes %mm by %t, %t
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>
    transform.tessel.check_tile_sizes %mm by : !transform.any_op
    transform.debug.emit_remark_at %mm, "checked" : !transform.any_op
    transform.yield
  }
}

// -----

// The failure is silenceable: a sequence that suppresses failures goes on.

// CHECK-LABEL: func.func @suppressed
func.func @suppressed(%a: tensor<24x8xf32>, %b: tensor<8x16xf32>, %c: tensor<24x16xf32>) -> tensor<24x16xf32> {
  // expected-remark@below {{after the suppressed failure}}
  %0 = linalg.matmul ins(%a, %b : tensor<24x8xf32>, tensor<8x16xf32>)
                     outs(%c : tensor<24x16xf32>) -> tensor<24x16xf32>
  return %0 : tensor<24x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    transform.sequence %arg0 : !transform.any_op failures(suppress) {
    ^bb0(%root: !transform.any_op):
      %t = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.tessel.check_tile_sizes %mm by %t : !transform.any_op, !transform.param<i64>
    }
    transform.debug.emit_remark_at %mm, "after the suppressed failure" : !transform.any_op
    transform.yield
  }
}
