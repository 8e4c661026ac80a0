// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// Two batch dimensions (2x3) of a generic contraction with B stored
// [n, k], and a bias indexed by the second batch dimension and the
// columns: one loop over the 6 batch elements mapped to grid z, whose body
// computes one element with 2-D ops. The bias is sliced along b1, the
// output along both.

// CHECK-DAG:   #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$B:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @two_batch_dims(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x3x8x16xf16>, %[[W:[a-z0-9]+]]: tensor<2x3x32x16xf16>, %[[BIAS:[a-z0-9]+]]: tensor<3x32xf32>, %[[Y:[a-z0-9]+]]: tensor<2x3x8x32xf16>
// CHECK:         %[[R:.+]] = scf.forall (%[[I:.+]]) in (6) shared_outs(%[[O:.+]] = %[[Y]])
// CHECK:           %[[B:.+]]:2 = affine.delinearize_index %[[I]] into (2, 3)
// CHECK:           %[[ACC:.+]] = linalg.fill {{.+}} -> tensor<8x32xf32>
// CHECK:           %[[XS:.+]] = tensor.extract_slice %[[X]][%[[B]]#0, %[[B]]#1, 0, 0] [1, 1, 8, 16] [1, 1, 1, 1] : tensor<2x3x8x16xf16> to tensor<8x16xf16>
// CHECK:           %[[WS:.+]] = tensor.extract_slice %[[W]][%[[B]]#0, %[[B]]#1, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<2x3x32x16xf16> to tensor<32x16xf16>
// CHECK:           %[[MM:.+]] = linalg.matmul indexing_maps = [#[[$A]], #[[$B]], #[[$C]]] ins(%[[XS]], %[[WS]] : {{.+}}) outs(%[[ACC]] : tensor<8x32xf32>)
// CHECK:           %[[BS:.+]] = tensor.extract_slice %[[BIAS]][%[[B]]#1, 0] [1, 32] [1, 1] : tensor<3x32xf32> to tensor<32xf32>
// CHECK:           %[[OS:.+]] = tensor.extract_slice %[[O]][%[[B]]#0, %[[B]]#1, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1]
// CHECK:           %[[E:.+]] = linalg.generic {{.+}} ins(%[[MM]], %[[BS]] : tensor<8x32xf32>, tensor<32xf32>) outs(%[[OS]] : tensor<8x32xf16>)
// CHECK:             arith.addf
// CHECK:           tensor.parallel_insert_slice %[[E]] into %[[O]][%[[B]]#0, %[[B]]#1, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1]
// CHECK:         } {mapping = [#gpu.block<z>]}
// CHECK:         return %[[R]]
func.func @two_batch_dims(%x: tensor<2x3x8x16xf16>, %w: tensor<2x3x32x16xf16>, %bias: tensor<3x32xf32>, %y: tensor<2x3x8x32xf16>) -> tensor<2x3x8x32xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x3x8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x3x8x32xf32>) -> tensor<2x3x8x32xf32>
  %mm = linalg.generic {
      indexing_maps = [affine_map<(b0, b1, m, n, k) -> (b0, b1, m, k)>,
                       affine_map<(b0, b1, m, n, k) -> (b0, b1, n, k)>,
                       affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x8x16xf16>, tensor<2x3x32x16xf16>) outs(%acc : tensor<2x3x8x32xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x8x32xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(b0, b1, i, j) -> (b0, b1, i, j)>, affine_map<(b0, b1, i, j) -> (b1, j)>,
                       affine_map<(b0, b1, i, j) -> (b0, b1, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<2x3x8x32xf32>, tensor<3x32xf32>) outs(%y : tensor<2x3x8x32xf16>) {
  ^bb0(%v: f32, %b: f32, %o: f16):
    %s = arith.addf %v, %b : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x3x8x32xf16>
  return %r : tensor<2x3x8x32xf16>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.tessel.tile_batch_to_blocks %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// linalg.batch_matmul with no epilogue: the output's slice is zeroed and
// accumulated into.

// CHECK-LABEL: func.func @no_epilogue(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<4x8x16xf32>, %[[B:[a-z0-9]+]]: tensor<4x16x32xf32>, %[[C:[a-z0-9]+]]: tensor<4x8x32xf32>
// CHECK:         scf.forall (%[[I:.+]]) in (4) shared_outs(%[[O:.+]] = %[[C]])
// CHECK:           %[[OS:.+]] = tensor.extract_slice %[[O]][%[[I]], 0, 0] [1, 8, 32] [1, 1, 1] : tensor<4x8x32xf32> to tensor<8x32xf32>
// CHECK:           %[[ACC:.+]] = linalg.fill {{.+}} outs(%[[OS]] : tensor<8x32xf32>)
// CHECK:           %[[MM:.+]] = linalg.matmul ins({{.+}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%[[ACC]] : tensor<8x32xf32>)
// CHECK:           tensor.parallel_insert_slice %[[MM]] into %[[O]][%[[I]], 0, 0] [1, 8, 32] [1, 1, 1]
// CHECK-NOT:     linalg.batch_matmul
func.func @no_epilogue(%A: tensor<4x8x16xf32>, %B: tensor<4x16x32xf32>,
                       %C: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%C : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %mm = linalg.batch_matmul ins(%A, %B : tensor<4x8x16xf32>, tensor<4x16x32xf32>)
                            outs(%acc : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %mm : tensor<4x8x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.tessel.tile_batch_to_blocks %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Without batch dimensions nothing changes.

// CHECK-LABEL: func.func @unbatched(
// CHECK-NOT:     scf.forall
// CHECK:         linalg.matmul ins
func.func @unbatched(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                     %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                      outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %mm : tensor<8x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.tessel.tile_batch_to_blocks %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// merge_block_foralls: the batch loop (grid z) and the block loop tiled
// inside it become one loop over the grid; the batch element's views move
// into its body.

// CHECK-LABEL: func.func @merge(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: memref<4x64x64xf32>
// CHECK:         scf.forall (%[[B:.+]], %[[I:.+]], %[[J:.+]]) in (4, 2, 8)
// CHECK-NEXT:      %[[V:.+]] = memref.subview %[[A]][%[[B]], 0, 0] [1, 64, 64]
// CHECK:           memref.subview %[[V]][%[[I]], %[[J]]]
// CHECK:           linalg.fill
// CHECK:         } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
// CHECK-NOT:     scf.forall
func.func @merge(%a: memref<4x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%b) in (4) {
    %v = memref.subview %a[%b, 0, 0] [1, 64, 64] [1, 1, 1] : memref<4x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    scf.forall (%i, %j) in (2, 8) {
      %t = memref.subview %v[%i, %j] [32, 8] [1, 1] : memref<64x64xf32, strided<[64, 1], offset: ?>> to memref<32x8xf32, strided<[64, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%t : memref<32x8xf32, strided<[64, 1], offset: ?>>)
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  } {mapping = [#gpu.block<z>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.tessel.merge_block_foralls %root : !transform.any_op
    transform.yield
  }
}
