// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// A size coming from a knob is named after the knob.

func.func @knob(%a: tensor<1000x64xf32>, %b: tensor<64x1000xf32>, %c: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  // expected-note@below {{target op}}
  %0 = linalg.matmul ins(%a, %b : tensor<1000x64xf32>, tensor<64x1000xf32>)
                     outs(%c : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> = -64 : i64 from options = [-64, 64] -> !transform.param<i64>
    // expected-error@below {{knob 'tile_m' = -64 is negative; tile sizes are positive (or 0 for "not tiled")}}
    transform.tessel.check_tile_sizes %mm by %tm : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// An empty loop range: nothing to compute.

func.func @empty(%a: tensor<0x30xf32>, %b: tensor<30x64xf32>, %c: tensor<0x64xf32>) -> tensor<0x64xf32> {
  // expected-note@below {{target op}}
  %0 = linalg.matmul ins(%a, %b : tensor<0x30xf32>, tensor<30x64xf32>)
                     outs(%c : tensor<0x64xf32>) -> tensor<0x64xf32>
  return %0 : tensor<0x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %t = transform.param.constant 16 : i64 -> !transform.param<i64>
    // expected-error@below {{loop dimension 0 has size 0: there is nothing to compute}}
    transform.tessel.check_tile_sizes %mm by %t, %t
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>
    transform.yield
  }
}

// -----

// Other sizes are named by position.

func.func @negative(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-note@below {{target op}}
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %t = transform.param.constant -16 : i64 -> !transform.param<i64>
    // expected-error@below {{tile size #0 = -16 is negative; tile sizes are positive (or 0 for "not tiled")}}
    transform.tessel.check_tile_sizes %mm by %t : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

func.func @dynamic(%a: tensor<?x32xf32>, %b: tensor<32x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-note@below {{target op}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x64xf32>)
                     outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %t = transform.param.constant 16 : i64 -> !transform.param<i64>
    // expected-error@below {{dynamic shapes are not supported: loop dimension 0 has a dynamic size}}
    transform.tessel.check_tile_sizes %mm by %t : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

func.func @not_linalg(%a: tensor<64xf32>) -> tensor<64xf32> {
  // expected-note@below {{target op}}
  return %a : tensor<64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %ret = transform.structured.match ops{["func.return"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %t = transform.param.constant 16 : i64 -> !transform.param<i64>
    // expected-error@below {{expected a linalg op}}
    transform.tessel.check_tile_sizes %ret by %t : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// A param holding several values is a definite failure.

func.func @two_values(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %a = transform.param.constant 16 : i64 -> !transform.param<i64>
    %b = transform.param.constant 32 : i64 -> !transform.param<i64>
    %both = transform.merge_handles %a, %b : !transform.param<i64>
    // expected-error@below {{expected each tile size to be a single integer param}}
    transform.tessel.check_tile_sizes %mm by %both : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// Definite failures are not suppressed.

func.func @two_values_suppressed(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    transform.sequence %arg0 : !transform.any_op failures(suppress) {
    ^bb0(%root: !transform.any_op):
      %a = transform.param.constant 16 : i64 -> !transform.param<i64>
      %b = transform.param.constant 32 : i64 -> !transform.param<i64>
      %both = transform.merge_handles %a, %b : !transform.param<i64>
      // expected-error@below {{expected each tile size to be a single integer param}}
      transform.tessel.check_tile_sizes %mm by %both : !transform.any_op, !transform.param<i64>
    }
    transform.yield
  }
}
