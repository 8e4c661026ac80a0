// The SIMT schedule rejects what it cannot compile, naming the knob or the
// limit. Its own errors point into the schedule file, so stderr is matched
// with FileCheck.

// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir" 2>&1 \
// RUN:   | FileCheck %s

// An empty matrix (M = 0): rejected by the first check, before anything is
// tiled, with the payload's location.
// CHECK:      matmul_relu_simt.mlir:{{[0-9]+}}:{{[0-9]+}}: error: loop dimension 0 has size 0: there is nothing to compute
// CHECK-NEXT: transform.tessel.check_tile_sizes %matmul by %tile_m, %tile_n, %tile_k
// CHECK:      matmul-relu-simt-invalid.mlir:[[# @LINE + 7]]:9: note: target op
// CHECK:      matmul-relu-simt-invalid.mlir:[[# @LINE + 1]]:1: error: schedule '{{.*}}matmul_relu_simt.mlir' (entry @__transform_main) failed on this payload with knobs:
func.func @empty(%A: tensor<0x64xf32>, %B: tensor<64x1000xf32>,
                 %C: tensor<0x1000xf32>) -> tensor<0x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<0x1000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<0x1000xf32>) -> tensor<0x1000xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<0x64xf32>, tensor<64x1000xf32>)
                      outs(%acc : tensor<0x1000xf32>) -> tensor<0x1000xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<0x1000xf32>) outs(%C : tensor<0x1000xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<0x1000xf32>
  return %relu : tensor<0x1000xf32>
}

// -----

// CHECK:      matmul_relu_simt.mlir:{{[0-9]+}}:{{[0-9]+}}: error: dynamic shapes are not supported: loop dimension 0 has a dynamic size
// CHECK:      matmul-relu-simt-invalid.mlir:[[# @LINE + 6]]:9: note: target op
// CHECK:      matmul-relu-simt-invalid.mlir:[[# @LINE + 1]]:1: error: schedule '{{.*}}matmul_relu_simt.mlir' (entry @__transform_main) failed on this payload with knobs:
func.func @dynamic(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>,
                   %C: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>)
                      outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x?xf32>) outs(%C : tensor<?x?xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %relu : tensor<?x?xf32>
}

// Only the failing payloads: every split above fails.
// CHECK-NOT: error:

// Knobs that divide the shape but ask for 256 x 256 threads per block.
// RUN: not tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=256,tile_n=256,thread_m=1,thread_n=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=THREADS
// THREADS:      matmul_relu_simt.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}block_dims = (256, 256, 1). It is larger than the limits.
// THREADS-NEXT: transform.tessel.map_nested_forall_to_threads
// THREADS:      matmul_relu_256x1024x1024_f32.mlir:{{[0-9]+}}:1: note: inferred block size 256 x 256 x 1 (65536 threads) from the thread tiling of this launch
// THREADS:      error: schedule '{{.*}}matmul_relu_simt.mlir' (entry @__transform_main) failed on this payload with knobs: tile_m=256 tile_n=256 tile_k=8 thread_m=1 thread_n=1

// Just over the limit: 32 x 64 = 2048 threads.
// RUN: not tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=128,tile_n=64,thread_m=4,thread_n=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=THREADS-2048
// THREADS-2048: note: inferred block size 64 x 32 x 1 (2048 threads)
