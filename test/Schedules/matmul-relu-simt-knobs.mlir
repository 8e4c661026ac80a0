// The knobs of the SIMT schedule shape the launch and the per-thread
// vectors. M=256, N=512, K=64; grid = (N/tile_n, M/tile_m), block =
// (tile_n/thread_n, tile_m/thread_m), A tile thread_m x tile_k, B tile
// tile_k x thread_n, accumulator thread_m x thread_n, K loop step tile_k.
// (--cse merges duplicate constants so that sizes can be matched by value.)

// Defaults: tile_m=64 tile_n=128 tile_k=8 thread_m=4 thread_n=8.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --cse | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-DAG:  %[[GX:.+]] = arith.constant 4 : index
// DEFAULT-DAG:  %[[BX:.+]] = arith.constant 16 : index
// DEFAULT-DAG:  %[[ONE:.+]] = arith.constant 1 : index
// DEFAULT-DAG:  %[[STEP:.+]] = arith.constant 8 : index
// DEFAULT:      gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[GX]], {{[^=]+}} = %[[GX]], {{[^=]+}} = %[[ONE]])
// DEFAULT-SAME:   threads({{[^)]+}}) in ({{[^=]+}} = %[[BX]], {{[^=]+}} = %[[BX]], {{[^=]+}} = %[[ONE]])
// DEFAULT:        scf.for {{.+}} step %[[STEP]] iter_args({{.+}}) -> (vector<4x8xf32>)
// DEFAULT:          vector.contract {{.+}} : vector<4x8xf32>, vector<8x8xf32> into vector<4x8xf32>
// DEFAULT:        arith.maximumf {{.+}} : vector<4x8xf32>
// DEFAULT:        vector.transfer_write {{.+}} : vector<4x8xf32>, memref<4x8xf32, strided<[512, 1], offset: ?>>

// Tall block tiles, one column per thread.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=128,tile_n=32,tile_k=16,thread_m=8,thread_n=1" \
// RUN:   --cse | FileCheck %s --check-prefix=TALL
// TALL-DAG:     %[[C16:.+]] = arith.constant 16 : index
// TALL-DAG:     %[[C2:.+]] = arith.constant 2 : index
// TALL-DAG:     %[[C32:.+]] = arith.constant 32 : index
// TALL-DAG:     %[[ONE:.+]] = arith.constant 1 : index
// TALL:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C16]], {{[^=]+}} = %[[C2]], {{[^=]+}} = %[[ONE]])
// TALL-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C32]], {{[^=]+}} = %[[C16]], {{[^=]+}} = %[[ONE]])
// TALL:           scf.for {{.+}} step %[[C16]] iter_args({{.+}}) -> (vector<8x1xf32>)
// TALL:             vector.contract {{.+}} : vector<8x16xf32>, vector<16x1xf32> into vector<8x1xf32>
// TALL:           vector.transfer_write {{.+}} : vector<8x1xf32>, memref<8x1xf32, strided<[512, 1], offset: ?>>

// Wide block tiles, one row per thread: the unit row dimension is dropped
// from the vectors.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=16,tile_n=256,tile_k=4,thread_m=1,thread_n=8" \
// RUN:   --cse | FileCheck %s --check-prefix=WIDE
// WIDE-DAG:     %[[C2:.+]] = arith.constant 2 : index
// WIDE-DAG:     %[[C16:.+]] = arith.constant 16 : index
// WIDE-DAG:     %[[C32:.+]] = arith.constant 32 : index
// WIDE-DAG:     %[[C4:.+]] = arith.constant 4 : index
// WIDE-DAG:     %[[ONE:.+]] = arith.constant 1 : index
// WIDE:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C2]], {{[^=]+}} = %[[C16]], {{[^=]+}} = %[[ONE]])
// WIDE-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C32]], {{[^=]+}} = %[[C16]], {{[^=]+}} = %[[ONE]])
// WIDE:           scf.for {{.+}} step %[[C4]] iter_args({{.+}}) -> (vector<8xf32>)
// WIDE:             vector.contract {{.+}} : vector<4xf32>, vector<4x8xf32> into vector<8xf32>
// WIDE:           vector.transfer_write {{.+}} : vector<8xf32>, memref<1x8xf32, strided<[512, 1], offset: ?>>

// Small thread tiles, the whole of K in two steps.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=32,tile_n=64,tile_k=32,thread_m=2,thread_n=2" \
// RUN:   --cse | FileCheck %s --check-prefix=SMALL
// SMALL-DAG:    %[[C8:.+]] = arith.constant 8 : index
// SMALL-DAG:    %[[C16:.+]] = arith.constant 16 : index
// SMALL-DAG:    %[[C32:.+]] = arith.constant 32 : index
// SMALL-DAG:    %[[C64:.+]] = arith.constant 64 : index
// SMALL-DAG:    %[[ONE:.+]] = arith.constant 1 : index
// SMALL:        gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C8]], {{[^=]+}} = %[[C8]], {{[^=]+}} = %[[ONE]])
// SMALL-SAME:     threads({{[^)]+}}) in ({{[^=]+}} = %[[C32]], {{[^=]+}} = %[[C16]], {{[^=]+}} = %[[ONE]])
// SMALL:          scf.for {{.+}} to %[[C64]] step %[[C32]] iter_args({{.+}}) -> (vector<2x2xf32>)
// SMALL:            vector.contract {{.+}} : vector<2x32xf32>, vector<32x2xf32> into vector<2x2xf32>
// SMALL:          vector.transfer_write {{.+}} : vector<2x2xf32>, memref<2x2xf32, strided<[512, 1], offset: ?>>

func.func @matmul_relu(%A: tensor<256x64xf32>, %B: tensor<64x512xf32>,
                       %C: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x64xf32>, tensor<64x512xf32>)
                      outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x512xf32>) outs(%C : tensor<256x512xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x512xf32>
  return %relu : tensor<256x512xf32>
}
