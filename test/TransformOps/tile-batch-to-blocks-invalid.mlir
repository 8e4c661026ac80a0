// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// More batch elements than a grid holds along z.

func.func @too_many(%A: tensor<65536x2x4xf32>, %B: tensor<65536x4x2xf32>,
                    %C: tensor<65536x2x2xf32>) -> tensor<65536x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%C : tensor<65536x2x2xf32>) -> tensor<65536x2x2xf32>
  // expected-note@below {{target op}}
  %mm = linalg.batch_matmul ins(%A, %B : tensor<65536x2x4xf32>, tensor<65536x4x2xf32>)
                            outs(%acc : tensor<65536x2x2xf32>) -> tensor<65536x2x2xf32>
  return %mm : tensor<65536x2x2xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error@below {{the batch has 65536 elements; a grid holds at most 65535 along z}}
    %f = transform.tessel.tile_batch_to_blocks %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The contraction's result read twice: its epilogue alone cannot take it
// into the batch loop.

func.func @two_uses(%A: tensor<2x8x16xf32>, %B: tensor<2x16x32xf32>,
                    %C: tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%C : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  // expected-note@below {{target op}}
  %mm = linalg.batch_matmul ins(%A, %B : tensor<2x8x16xf32>, tensor<2x16x32xf32>)
                            outs(%acc : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %mm, %mm : tensor<2x8x32xf32>, tensor<2x8x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error@below {{expected the contraction's result used once (by the epilogue or as the function's result)}}
    %f = transform.tessel.tile_batch_to_blocks %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An accumulator that is not zeroed by a fill (C += A x B).

func.func @accumulates(%A: tensor<2x8x16xf32>, %B: tensor<2x16x32xf32>,
                       %C: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  // expected-note@below {{target op}}
  %mm = linalg.batch_matmul ins(%A, %B : tensor<2x8x16xf32>, tensor<2x16x32xf32>)
                            outs(%C : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %mm : tensor<2x8x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error@below {{expected the accumulator zeroed by a linalg.fill}}
    %f = transform.tessel.tile_batch_to_blocks %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A consumer that is not elementwise over the result (a transpose).

func.func @transposed_consumer(%A: tensor<2x8x16xf32>, %B: tensor<2x16x8xf32>,
                               %C: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  // expected-note@below {{target op}}
  %mm = linalg.batch_matmul ins(%A, %B : tensor<2x8x16xf32>, tensor<2x16x8xf32>)
                            outs(%acc : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %t = linalg.generic {
      indexing_maps = [affine_map<(b, i, j) -> (b, j, i)>, affine_map<(b, i, j) -> (b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm : tensor<2x8x8xf32>) outs(%C : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<2x8x8xf32>
  return %t : tensor<2x8x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error@below {{expected the contraction's consumer to be an elementwise linalg.generic over its result (an epilogue)}}
    %f = transform.tessel.tile_batch_to_blocks %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// merge_block_foralls: a write in the outer loop's body would run once per
// inner block after merging.

func.func @side_effect(%a: memref<4x64xf32>, %flags: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-note@below {{target op}}
  scf.forall (%b) in (4) {
    // expected-note@below {{this op}}
    memref.store %zero, %flags[%b] : memref<4xf32>
    scf.forall (%i) in (2) {
      memref.store %zero, %a[%b, %i] : memref<4x64xf32>
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.block<z>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error@below {{the outer block loop's body has an op with side effects besides the inner block loop}}
    transform.tessel.merge_block_foralls %root : !transform.any_op
    transform.yield
  }
}

// -----

// merge_block_foralls: both loops on grid x.

func.func @same_dimension(%a: memref<4x64xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-note@below {{target op}}
  scf.forall (%b) in (4) {
    scf.forall (%i) in (2) {
      memref.store %zero, %a[%b, %i] : memref<4x64xf32>
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error@below {{the nested block loops map to the same grid dimension}}
    transform.tessel.merge_block_foralls %root : !transform.any_op
    transform.yield
  }
}
