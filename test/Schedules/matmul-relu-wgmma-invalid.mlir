// The wgmma schedule rejects what it cannot compile, naming the knob or the
// constraint, before the payload is changed. Its own errors point into the
// schedule file, so stderr is matched with FileCheck.

// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_n=256,split_k=1" 2>&1 \
// RUN:   | FileCheck %s
// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=256,tile_n=256,stages=6,split_k=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SMEM
// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=192,tile_n=256,stages=3,split_k=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REGS
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's/^        cluster %%cluster swap_ab %%swap_ab$/        cluster %%cluster swap_ab %%swap_ab {copy_16b_rows_from = -1 : i64}/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t/negative.mlir
// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="schedule=%t/negative.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE
// RUN: sed 's/^        cluster %%cluster swap_ab %%swap_ab$/        cluster %%cluster swap_ab %%swap_ab {read_misaligned_rows_max_k = -64 : i64}/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t/negative-read.mlir
// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-apply-schedule="schedule=%t/negative-read.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE-READ

// A negative copy_16b_rows_from is refused (fourth RUN), on every payload.
// NEGATIVE: negative.mlir:{{[0-9]+}}:{{[0-9]+}}: error: copy_16b_rows_from = -1 must not be negative (0 copies every such B)
// NEGATIVE-READ: negative-read.mlir:{{[0-9]+}}:{{[0-9]+}}: error: read_misaligned_rows_max_k = -64 must not be negative (0 copies every such operand)

// f64 inputs have no wgmma instruction.
// CHECK:      matmul_relu_wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: wgmma needs f16, bf16 or f32 inputs (both the same) and an f32 accumulator
// CHECK:      note: target op
// CHECK:      matmul-relu-wgmma-invalid.mlir:[[# @LINE + 1]]:1: error: schedule
func.func @f64_inputs(%A: tensor<256x256xf64>, %B: tensor<512x256xf64>,
    %C: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : tensor<256x256xf64>, tensor<512x256xf64>)
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

// -----

// Valid with the default knobs; with 256x256 tiles and 6 stages (second RUN)
// the ring needs 6 x 64 KiB + 1024 bytes, more than the 227 KiB a block may
// use.
// With 192x256 tiles (third RUN), the three consumer warpgroups and the
// producer are 512 threads, which get 128 registers each: too few for 128
// accumulators and the rest.
// REGS:       matmul_relu_wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the 192x256 tile needs 128 accumulator registers per thread, but its 512 threads get at most 128 registers each; the kernel would spill
// CHECK-NOT:  error:
// SMEM:       matmul_relu_wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the 256x256 tile with 6 stages needs 394336 bytes of shared memory; an sm_90 block has at most 232448
// SMEM:       matmul-relu-wgmma-invalid.mlir:[[# @LINE + 7]]:9: note: target op
// SMEM:       matmul-relu-wgmma-invalid.mlir:[[# @LINE + 1]]:1: error: schedule '{{.*}}matmul_relu_wgmma.mlir' (entry @__transform_main) failed on this payload with knobs: tile_m=256 tile_n=256 stages=6 group_m=8
func.func @too_much_shared_memory(%A: tensor<512x256xf16>, %B: tensor<256x512xf16>,
    %C: tensor<512x512xf16>) -> tensor<512x512xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x512xf32>) -> tensor<512x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<512x256xf16>, tensor<256x512xf16>)
                      outs(%acc : tensor<512x512xf32>) -> tensor<512x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<512x512xf32>) outs(%C : tensor<512x512xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<512x512xf16>
  return %relu : tensor<512x512xf16>
}
