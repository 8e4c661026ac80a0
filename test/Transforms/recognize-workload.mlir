// What tessel-apply-schedule records as a function's workload
// (tessel.workload: the contraction's layout and the epilogue as steps the
// reference evaluates), with a schedule that leaves the payload alone.
// RUN: tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="schedule=%S/Inputs/identity-schedule.mlir" \
// RUN:   | FileCheck %s

// relu(A x B), the plain layout: the accumulator is value 0, the zero a
// constant step, and the truncation to f16 no step at all.
// CHECK-LABEL: func.func @matmul_relu
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", epilogue = ["constant 0", "maximumf 0 1"], k = 16 : i64, kind = "contraction", lhs = 0 : i64, m = 8 : i64, n = 32 : i64, out = 2 : i64, rhs = 1 : i64}
func.func @matmul_relu(%A: tensor<8x16xf16>, %B: tensor<16x32xf16>,
                       %C: tensor<8x32xf16>) -> tensor<8x32xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8x16xf16>, tensor<16x32xf16>)
                      outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x32xf32>) outs(%C : tensor<8x32xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x32xf16>
  return %relu : tensor<8x32xf16>
}

// -----

// A Linear layer: the weight stored (out, in) = [n, k], a bias over columns
// (operand 1, read as [n]), GELU's tanh form; constants are the f32 values
// the kernel computes with.
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @linear_bias_gelu
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", epilogue = ["addf 0 1", "constant 0.5", "constant 1", "constant 0.7978845834732056", "constant 0.044714998453855515", "mulf 2 2", "mulf 7 2", "mulf 8 6", "addf 2 9", "mulf 10 5", "tanh 11", "addf 12 4", "mulf 2 3", "mulf 14 13"], epilogue_operands = [{argument = 2 : i64, dims = ["n"]}], k = 32 : i64, kind = "contraction", lhs = 0 : i64, m = 64 : i64, n = 48 : i64, out = 3 : i64, rhs = 1 : i64, rhs_transposed = true}
func.func @linear_bias_gelu(%x: tensor<64x32xbf16>, %w: tensor<48x32xbf16>,
                            %bias: tensor<48xbf16>,
                            %y: tensor<64x48xbf16>) -> tensor<64x48xbf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<64x32xbf16>, tensor<48x32xbf16>)
      outs(%acc : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x48xf32>, tensor<48xbf16>)
      outs(%y : tensor<64x48xbf16>) {
  ^bb0(%a: f32, %b: bf16, %out: bf16):
    %be = arith.extf %b : bf16 to f32
    %v = arith.addf %a, %be : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.constant 0.7978845608028654 : f32
    %c3 = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %t0 = arith.mulf %v3, %c3 : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %c : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %v, %half : f32
    %g = arith.mulf %t5, %t4 : f32
    %t = arith.truncf %g : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x48xbf16>
  return %r : tensor<64x48xbf16>
}

// -----

// Batched, A transposed ([b, k, m]); a chain of two generics (a full-size
// residual, then SiLU as x / (1 + exp(-x))) becomes one program.
// CHECK-LABEL: func.func @batch_residual_silu
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", batch = [3], epilogue = ["addf 0 1", "negf 2", "exp 3", "constant 1", "addf 4 5", "divf 2 6"], epilogue_operands = [{argument = 2 : i64, dims = ["b0", "m", "n"]}], k = 16 : i64, kind = "contraction", lhs = 0 : i64, lhs_transposed = true, m = 8 : i64, n = 32 : i64, out = 3 : i64, rhs = 1 : i64}
#bkm = affine_map<(b, m, n, k) -> (b, k, m)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
func.func @batch_residual_silu(%A: tensor<3x16x8xf32>, %B: tensor<3x16x32xf32>,
                               %R: tensor<3x8x32xf32>,
                               %C: tensor<3x8x32xf32>) -> tensor<3x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %empty = tensor.empty() : tensor<3x8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x8x32xf32>) -> tensor<3x8x32xf32>
  %mm = linalg.generic {
      indexing_maps = [#bkm, #bkn, #bmn],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%A, %B : tensor<3x16x8xf32>, tensor<3x16x32xf32>)
      outs(%acc : tensor<3x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x8x32xf32>
  %sum = linalg.generic {
      indexing_maps = [#id3, #id3, #id3],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %R : tensor<3x8x32xf32>, tensor<3x8x32xf32>)
      outs(%empty : tensor<3x8x32xf32>) {
  ^bb0(%x: f32, %r: f32, %out: f32):
    %v = arith.addf %x, %r : f32
    linalg.yield %v : f32
  } -> tensor<3x8x32xf32>
  %silu = linalg.generic {
      indexing_maps = [#id3, #id3],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sum : tensor<3x8x32xf32>) outs(%C : tensor<3x8x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %y = arith.divf %x, %d : f32
    linalg.yield %y : f32
  } -> tensor<3x8x32xf32>
  return %silu : tensor<3x8x32xf32>
}

// -----

// linalg.batch_matmul with no epilogue: the zero-filled output is the
// accumulator, and the workload has no steps.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", batch = [2], k = 16 : i64, kind = "contraction", lhs = 0 : i64, m = 8 : i64, n = 32 : i64, out = 2 : i64, rhs = 1 : i64}
func.func @batch_matmul(%A: tensor<2x8x16xf32>, %B: tensor<2x16x32xf32>,
                        %C: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%C : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %mm = linalg.batch_matmul ins(%A, %B : tensor<2x8x16xf32>, tensor<2x16x32xf32>)
                            outs(%acc : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %mm : tensor<2x8x32xf32>
}

// -----

// A bias over rows ([m]) and a select: relu written as x > 0 ? x : 0.
// CHECK-LABEL: func.func @row_bias_select
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", epilogue = ["addf 0 1", "constant 0", "cmpf_ogt 2 3", "select 4 2 3"], epilogue_operands = [{argument = 3 : i64, dims = ["m"]}], k = 16 : i64, kind = "contraction", lhs = 0 : i64, m = 8 : i64, n = 32 : i64, out = 2 : i64, rhs = 1 : i64}
func.func @row_bias_select(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                           %C: tensor<8x32xf32>, %bias: tensor<8xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                      outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x32xf32>, tensor<8xf32>) outs(%C : tensor<8x32xf32>) {
  ^bb0(%x: f32, %b: f32, %out: f32):
    %v = arith.addf %x, %b : f32
    %pos = arith.cmpf ogt, %v, %zero : f32
    %y = arith.select %pos, %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Not workloads Tessel can check, so no attribute: an op the reference
// does not evaluate (math.sin), an epilogue that reads the output's old
// value, an accumulator that does not start at zero.
// CHECK-LABEL: func.func @sin
// CHECK-NOT:     tessel.workload
// CHECK-LABEL: func.func @reads_output
// CHECK-NOT:     tessel.workload
// CHECK-LABEL: func.func @nonzero_init
// CHECK-NOT:     tessel.workload
func.func @sin(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
               %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                      outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x32xf32>) outs(%C : tensor<8x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = math.sin %x : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

func.func @reads_output(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                        %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                      outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x32xf32>) outs(%C : tensor<8x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.addf %x, %out : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

func.func @nonzero_init(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                        %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %one = arith.constant 1.0 : f32
  %acc = linalg.fill ins(%one : f32) outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                      outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %mm : tensor<8x32xf32>
}
