// The mma.sync schedule rejects what it cannot compile, naming the knob or
// the constraint, before the payload is changed. Its own errors point into
// the schedule file, so stderr is matched with FileCheck.

// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_mma.mlir" 2>&1 \
// RUN:   | FileCheck %s

// K = 48 in steps of tile_k = 32 is two steps, too few for a pipeline of
// stages = 3 (the last step is a partial one: K need not be a multiple of
// tile_k).
// CHECK:      error: pipelining depth 3 needs a loop of at least 3 iterations; this loop runs 2 (lower the depth or the loop's tile size)
// CHECK:      matmul-relu-mma-invalid.mlir:[[# @LINE + 1]]:1: error: schedule
func.func @k_not_divisible(%A: tensor<256x48xf16>, %B: tensor<48x256xf16>,
    %C: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x48xf16>, tensor<48x256xf16>)
                      outs(%acc : tensor<256x256xf32>) -> tensor<256x256xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x256xf32>) outs(%C : tensor<256x256xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x256xf16>
  return %relu : tensor<256x256xf16>
}

// -----

// f32 inputs have no m16n8k16 tensor-core instruction.
// CHECK:      matmul_relu_mma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mma.sync needs f16 or bf16 inputs (both the same) and an f32 accumulator
// CHECK:      note: target op
// CHECK:      matmul-relu-mma-invalid.mlir:[[# @LINE + 1]]:1: error: schedule
func.func @f32_inputs(%A: tensor<256x64xf32>, %B: tensor<64x256xf32>,
    %C: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x64xf32>, tensor<64x256xf32>)
                      outs(%acc : tensor<256x256xf32>) -> tensor<256x256xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x256xf32>) outs(%C : tensor<256x256xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x256xf32>
  return %relu : tensor<256x256xf32>
}
