// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --cse | FileCheck %s
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   | FileCheck %s --check-prefix=NO-TENSOR

// (--cse merges the duplicate constants the schedule leaves, so that launch
// sizes can be matched by value.)

// Default knobs: tile_m=64 tile_n=128 tile_k=8 thread_m=4 thread_n=8 on
// M=128, N=512, K=32: grid (512/128, 128/64) = (4, 2), block (128/8, 64/4)
// = (16, 16); each thread owns a 4x8 accumulator.

// CHECK-DAG:   #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0 * 64 + d1 * 4)>
// CHECK-DAG:   #[[$COL:.+]] = affine_map<(d0, d1) -> (d0 * 128 + d1 * 8)>
// CHECK-LABEL: func.func @matmul_relu
// CHECK-SAME:    (%[[A:.+]]: memref<128x32xf32>, %[[B:.+]]: memref<32x512xf32>, %[[C:.+]]: memref<128x512xf32>) -> memref<128x512xf32>
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", epilogue = ["constant 0", "maximumf 0 1"], k = 32 : i64, kind = "contraction", lhs = 0 : i64, m = 128 : i64, n = 512 : i64, out = 2 : i64, rhs = 1 : i64}
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4x8xf32>
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C4]], {{[^=]+}} = %[[C2]], {{[^=]+}} = %[[C1]])
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C16]], {{[^=]+}} = %[[C16]], {{[^=]+}} = %[[C1]])
// CHECK-DAG:       %[[BX:.+]] = gpu.block_id x
// CHECK-DAG:       %[[BY:.+]] = gpu.block_id y
// CHECK-DAG:       %[[TX:.+]] = gpu.thread_id x
// CHECK-DAG:       %[[TY:.+]] = gpu.thread_id y
// CHECK-DAG:       %[[CBLOCK:.+]] = memref.subview %[[C]][%{{.+}}, %{{.+}}] [64, 128] [1, 1]
// The accumulator stays in registers across the K loop.
// CHECK:           %[[ACC:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[C32]] step %[[C8]] iter_args(%[[IT:.+]] = %[[ZERO]]) -> (vector<4x8xf32>) {
// CHECK:             %[[ROW:.+]] = affine.apply #[[$ROW]](%[[BY]], %[[TY]])
// CHECK:             %[[AV:.+]] = vector.transfer_read %[[A]][%[[ROW]], %[[K]]], %{{.+}} {in_bounds = [true, true]} : memref<128x32xf32>, vector<4x8xf32>
// CHECK:             %[[COL:.+]] = affine.apply #[[$COL]](%[[BX]], %[[TX]])
// CHECK:             %[[BV:.+]] = vector.transfer_read %[[B]][%[[K]], %[[COL]]], %{{.+}} {in_bounds = [true, true]} : memref<32x512xf32>, vector<8x8xf32>
// CHECK:             %[[RES:.+]] = vector.contract
// CHECK-SAME:          %[[AV]], %[[BV]], %[[IT]] : vector<4x8xf32>, vector<8x8xf32> into vector<4x8xf32>
// CHECK:             scf.yield %[[RES]] : vector<4x8xf32>
// CHECK:           }
// ReLU is applied to the accumulator after the loop (epilogue fusion) and
// written to C once.
// CHECK:           %[[CTHREAD:.+]] = memref.subview %[[CBLOCK]][%{{.+}}, %{{.+}}] [4, 8] [1, 1]
// CHECK:           %[[RELU:.+]] = arith.maximumf %[[ACC]], %[[ZERO]] : vector<4x8xf32>
// CHECK:           vector.transfer_write %[[RELU]], %[[CTHREAD]][%[[C0]], %[[C0]]] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32, strided<[512, 1], offset: ?>>
// CHECK-NOT:       vector.transfer_write
// CHECK:           gpu.terminator
// CHECK:         return %[[C]] : memref<128x512xf32>

// Everything is bufferized, nothing is allocated, nothing is left of the
// linalg ops or of the schedule.
// NO-TENSOR-NOT: tensor.
// NO-TENSOR-NOT: tensor<
// NO-TENSOR-NOT: memref.alloc
// NO-TENSOR-NOT: linalg.
// NO-TENSOR-NOT: scf.forall
// NO-TENSOR-NOT: transform.
// NO-TENSOR:     gpu.launch
// NO-TENSOR-NOT: tensor.
// NO-TENSOR-NOT: tensor<
// NO-TENSOR-NOT: memref.alloc
// NO-TENSOR-NOT: linalg.
// NO-TENSOR-NOT: scf.forall
// NO-TENSOR-NOT: transform.

func.func @matmul_relu(%A: tensor<128x32xf32>, %B: tensor<32x512xf32>,
                       %C: tensor<128x512xf32>) -> tensor<128x512xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x512xf32>) -> tensor<128x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<128x32xf32>, tensor<32x512xf32>)
                      outs(%acc : tensor<128x512xf32>) -> tensor<128x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<128x512xf32>) outs(%C : tensor<128x512xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x512xf32>
  return %relu : tensor<128x512xf32>
}
