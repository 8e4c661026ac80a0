// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// 1000 rows in tiles of 64: 16 tiles, the last one shifted back to start at
// 1000 - 64 = 936 and full. Every slice becomes static once canonicalized.

// CHECK-DAG:   #[[$OFF:.+]] = affine_map<(d0) -> (936, d0 * 64)>
// CHECK-LABEL: func.func @rows
// CHECK:         scf.forall (%[[I:.+]]) in (16)
// CHECK:           %[[O:.+]] = affine.min #[[$OFF]](%[[I]])
// CHECK:           tensor.extract_slice %{{.+}}[%[[O]], 0] [64, 8] [1, 1] : tensor<1000x8xf32> to tensor<64x8xf32>
// CHECK:           linalg.generic {{.+}} ins(%{{.+}} : tensor<64x8xf32>) outs(%{{.+}} : tensor<64x8xf32>)
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[O]], 0] [64, 8] [1, 1]
func.func @rows(%arg0: tensor<1000x8xf32>, %arg1: tensor<1000x8xf32>) -> tensor<1000x8xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%arg0 : tensor<1000x8xf32>) outs(%arg1 : tensor<1000x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.maximumf %in, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<1000x8xf32>
  return %0 : tensor<1000x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %g tile_sizes [64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tessel.shift_partial_tiles %forall : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}

// -----

// Dimensions that the tile divides (1024 / 64) or that one tile covers
// (8 <= 16) are left as they were.

// CHECK-LABEL: func.func @divides
// CHECK:         scf.forall (%[[I:.+]]) in (16)
// CHECK-NOT:       affine.min
// CHECK:           tensor.extract_slice %{{.+}} [64, 8] [1, 1] : tensor<1024x8xf32> to tensor<64x8xf32>
func.func @divides(%arg0: tensor<1024x8xf32>, %arg1: tensor<1024x8xf32>) -> tensor<1024x8xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%arg0 : tensor<1024x8xf32>) outs(%arg1 : tensor<1024x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.maximumf %in, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<1024x8xf32>
  return %0 : tensor<1024x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %g tile_sizes [64, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tessel.shift_partial_tiles %forall : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
