// Partial tiles in the SIMT schedule: 1000 = 15 x 64 + 40 rows and
// 7 x 128 + 104 columns, K = 1000 = 62 x 16 + 8. The last block row and
// column move back to end at the matrix's edge (starting at 936 and 872),
// so every block and thread tile stays full and static: vector<4x8xf32>
// accumulators, 16-byte loads and stores. The K loop keeps full 16-deep
// steps up to 992; the last 8 are peeled into a step of their own.
//
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=64,tile_n=128,tile_k=16,thread_m=4,thread_n=8" \
// RUN:   | FileCheck %s
// RUN: rm -rf %t && tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=64,tile_n=128,tile_k=16,thread_m=4,thread_n=8" \
// RUN:   --tessel-lower-to-ptx="chip=sm_80" --tessel-export-kernels=dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_relu_kernel.ptx

// CHECK-DAG:   #[[$ROWS:.+]] = affine_map<(d0) -> (936, d0 * 64)>
// CHECK-DAG:   #[[$COLS:.+]] = affine_map<(d0) -> (872, d0 * 128)>
// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}} = %c16{{.*}}, {{.+}} = %c1{{.*}}) threads({{.+}}) in ({{.+}} = %c16{{.*}}, {{.+}} = %c16{{.*}}, {{.+}} = %c1{{.*}})
// CHECK:           affine.min #[[$ROWS]](%{{.+}})
// CHECK:           affine.min #[[$COLS]](%{{.+}})
// CHECK:           scf.for %{{.+}} = %c0{{.*}} to %c992{{.*}} step %c16{{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<4x8xf32>)
// CHECK:             vector.transfer_read {{.+}} {in_bounds = [true, true]} : memref<1000x1000xf32>, vector<4x16xf32>
// CHECK:             vector.transfer_read {{.+}} {in_bounds = [true, true]} : memref<1000x1000xf32>, vector<16x8xf32>
// CHECK:           vector.transfer_read %{{.+}}[%{{.+}}, %c992{{.*}}], {{.+}} : memref<1000x1000xf32>, vector<4x8xf32>
// CHECK:           vector.contract {{.+}} : vector<4x8xf32>, vector<8x8xf32> into vector<4x8xf32>
// CHECK:           vector.transfer_write {{.+}} {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32

// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32

// C = relu(A * B): A is 1000x1000, B is 1000x1000, row-major, f32 inputs,
// f32 accumulation, f32 output written into C.
func.func @matmul_relu(%A: tensor<1000x1000xf32>, %B: tensor<1000x1000xf32>,
                       %C: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1000x1000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<1000x1000xf32>, tensor<1000x1000xf32>)
                      outs(%acc : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1000x1000xf32>) outs(%C : tensor<1000x1000xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1000x1000xf32>
  return %relu : tensor<1000x1000xf32>
}
