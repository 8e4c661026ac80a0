// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// A tile that reads its output (C += ...) cannot overlap another: the
// shared elements would be accumulated twice.

func.func @accumulates(%a: tensor<1000x8xf32>, %c: tensor<1000x8xf32>) -> tensor<1000x8xf32> {
  // expected-note@below {{target op}}
  // expected-note@below {{here}}
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<1000x8xf32>) outs(%c : tensor<1000x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<1000x8xf32>
  return %0 : tensor<1000x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %g tile_sizes [64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error@below {{the loop's output is read inside it; overlapping tiles would read what another tile wrote}}
    transform.tessel.shift_partial_tiles %forall : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_forall(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note@below {{target op}}
  %0 = arith.addf %a, %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{expected a normalized scf.forall (zero lower bounds, unit steps), as tile_using_forall produces}}
    transform.tessel.shift_partial_tiles %op : !transform.any_op
    transform.yield
  }
}
