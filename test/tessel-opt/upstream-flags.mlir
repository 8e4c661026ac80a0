// tessel-opt is mlir-opt plus Tessel: upstream passes, pass-manager
// instrumentation and the transform interpreter all work, mixed with
// Tessel's passes.

// Upstream canonicalize and cse.
// RUN: tessel-opt %s --split-input-file --canonicalize --cse | FileCheck %s --check-prefix=CANON

// IR printing instruments Tessel passes like upstream ones, in order.
// RUN: tessel-opt %s --split-input-file --tessel-lower-vectors --canonicalize --cse \
// RUN:   --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINT

// A Tessel pass in an explicit pass pipeline, with an upstream one.
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-lower-vectors,canonicalize))" \
// RUN:   | FileCheck %s --check-prefix=PIPELINE

// The upstream transform interpreter, with a Tessel transform op (the whole
// file as one module: the named sequence in the last part applies to all).
// RUN: tessel-opt %s --transform-interpreter --verify-diagnostics \
// RUN:   | FileCheck %s --check-prefix=INTERP

// --help lists Tessel's passes and pipeline next to upstream ones.
// RUN: tessel-opt --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: --canonicalize
// HELP-DAG: --transform-interpreter
// HELP-DAG: --convert-gpu-to-nvvm
// HELP-DAG: --tessel-apply-schedule
// HELP-DAG: --tessel-check-kernel-payload
// HELP-DAG: --tessel-export-kernels
// HELP-DAG: --tessel-lower-vectors
// HELP-DAG: --tessel-set-vector-alignment
// HELP-DAG: --tessel-lower-to-ptx

// CANON-LABEL: func.func @fold
// CANON-NEXT:    %[[C:.+]] = arith.constant 5 : index
// CANON-NEXT:    return %[[C]], %[[C]] : index, index
// PRINT:       // -----// IR Dump After TesselLowerVectors (tessel-lower-vectors) //----- //
// PRINT:       func.func @fold
// PRINT:       // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// PRINT:       // -----// IR Dump After CSE (cse) //----- //
// PIPELINE-LABEL: func.func @fold
// PIPELINE-NEXT:    arith.constant 5 : index
// INTERP-LABEL: func.func @fold
// INTERP-NEXT:    arith.constant 2 : index
func.func @fold() -> (index, index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = arith.addi %c2, %c3 : index
  %b = arith.addi %c2, %c3 : index
  return %a, %b : index, index
}

// -----

// CANON-LABEL: func.func @contract
// CANON:         vector.contract
// PRINT:       // -----// IR Dump After TesselLowerVectors (tessel-lower-vectors) //----- //
// PRINT:       func.func @contract
// PRINT-NOT:   vector.contract
// PRINT:       // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// PIPELINE-LABEL: func.func @contract
// PIPELINE-NOT:   vector.contract
// PIPELINE:       vector.fma
// INTERP-LABEL: func.func @contract
// INTERP:         vector.contract
#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>
func.func @contract(%a: vector<2x2xf32>, %b: vector<2x4xf32>, %c: vector<2x4xf32>) -> vector<2x4xf32> {
  %r = vector.contract {indexing_maps = [#map_a, #map_b, #map_c],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %a, %b, %c
      : vector<2x2xf32>, vector<2x4xf32> into vector<2x4xf32>
  return %r : vector<2x4xf32>
}

// -----

// The transform interpreter runs a Tessel transform op in the same file.
// INTERP-LABEL: func.func @checked
func.func @checked(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark@below {{tile sizes divide}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %t = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.tessel.check_tile_sizes %mm by %t, %t : !transform.any_op, !transform.param<i64>, !transform.param<i64>
    transform.debug.emit_remark_at %mm, "tile sizes divide" : !transform.any_op
    transform.yield
  }
}
