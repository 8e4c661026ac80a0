// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --cse | FileCheck %s

// f16 inputs and output, f32 accumulation (as the input IR says): loads are
// f16 and extended, the contraction and ReLU are f32, and the result is
// truncated once, after the K loop, before the single store.

// CHECK-LABEL: func.func @matmul_relu
// CHECK-SAME:    (%[[A:.+]]: memref<64x16xf16>, %[[B:.+]]: memref<16x256xf16>, %[[C:.+]]: memref<64x256xf16>) -> memref<64x256xf16>
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", epilogue = ["constant 0", "maximumf 0 1"], k = 16 : i64, kind = "contraction", lhs = 0 : i64, m = 64 : i64, n = 256 : i64, out = 2 : i64, rhs = 1 : i64}
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4x8xf32>
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C2]], {{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]])
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C16]], {{[^=]+}} = %[[C16]], {{[^=]+}} = %[[C1]])
// CHECK:           %[[ACC:.+]] = scf.for {{.+}} iter_args(%[[IT:.+]] = %[[ZERO]]) -> (vector<4x8xf32>) {
// CHECK:             %[[AV:.+]] = vector.transfer_read %[[A]]{{.+}} : memref<64x16xf16>, vector<4x8xf16>
// CHECK:             %[[BV:.+]] = vector.transfer_read %[[B]]{{.+}} : memref<16x256xf16>, vector<8x8xf16>
// CHECK:             %[[AE:.+]] = arith.extf %[[AV]] : vector<4x8xf16> to vector<4x8xf32>
// CHECK:             %[[BE:.+]] = arith.extf %[[BV]] : vector<8x8xf16> to vector<8x8xf32>
// CHECK:             %[[RES:.+]] = vector.contract
// CHECK-SAME:          %[[AE]], %[[BE]], %[[IT]] : vector<4x8xf32>, vector<8x8xf32> into vector<4x8xf32>
// CHECK-NOT:         arith.truncf
// CHECK:             scf.yield %[[RES]] : vector<4x8xf32>
// CHECK:           }
// CHECK:           %[[RELU:.+]] = arith.maximumf %[[ACC]], %[[ZERO]] : vector<4x8xf32>
// CHECK:           %[[OUT:.+]] = arith.truncf %[[RELU]] : vector<4x8xf32> to vector<4x8xf16>
// CHECK:           vector.transfer_write %[[OUT]], %{{.+}} : vector<4x8xf16>, memref<4x8xf16, strided<[256, 1], offset: ?>>
// CHECK:         return %[[C]] : memref<64x256xf16>
// CHECK-NOT:     tensor<
// CHECK-NOT:     memref.alloc

func.func @matmul_relu(%A: tensor<64x16xf16>, %B: tensor<16x256xf16>,
                       %C: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<64x16xf16>, tensor<16x256xf16>)
                      outs(%acc : tensor<64x256xf32>) -> tensor<64x256xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x256xf32>) outs(%C : tensor<64x256xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x256xf16>
  return %relu : tensor<64x256xf16>
}
