// A vector value in a kernel belongs to one thread. One over four times a
// thread's registers (4 x 255 of 32 bits) is unrolled into one operation
// per element and spilled: a schedule that left K untiled gave each thread a
// vector<4x4096xf32>, and one compile took 22 s for 4 MB of PTX with no
// word said. The entry check of the PTX lowering now warns, at the first
// such value of each launch; smaller vectors pass silently.
//
// RUN: tessel-opt %s --tessel-check-kernel-payload --split-input-file --verify-diagnostics
//
// The shipped SIMT schedule without its K tiling (step 4), at K = 1024:
// RUN: sed '/Step 4. Tile K/,/Step 5. Vectorize/d' %schedules/matmul_relu_simt.mlir > %t.untiled.mlir
// RUN: tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%t.untiled.mlir knobs=tile_m=16,tile_n=16,thread_m=1,thread_n=1" \
// RUN:   --tessel-lower-to-ptx=chip=sm_90a -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTILED
// UNTILED: warning: each thread holds a 'vector<1024xf32>' (1024 32-bit registers; a thread has at most 255)
// UNTILED-SAME: the reduction (K) included?
// UNTILED-NOT: warning
// The schedule as shipped: no warning.
// RUN: tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=16,tile_n=16,thread_m=1,thread_n=1" \
// RUN:   --tessel-lower-to-ptx=chip=sm_90a -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILED --allow-empty
// TILED-NOT: warning

func.func @untiled_k(%a: memref<4x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-warning@below {{each thread holds a 'vector<4x4096xf32>' (16384 32-bit registers; a thread has at most 255): it is unrolled into one operation per element and spilled to local memory}}
    %v = vector.transfer_read %a[%c0, %c0], %zero {in_bounds = [true, true]}
        : memref<4x4096xf32>, vector<4x4096xf32>
    // Only the first one of a launch is reported.
    %w = arith.addf %v, %v : vector<4x4096xf32>
    gpu.terminator
  }
  return
}

// -----

// Up to 4 x 255 registers' worth: no warning (f16 counts half). The
// shipped SIMT schedule's largest thread slice is vector<8x32xf32>.
func.func @fits(%a: memref<4x2048xf16>, %b: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = arith.constant 0.0 : f16
  %f = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.transfer_read %a[%c0, %c0], %h {in_bounds = [true, true]}
        : memref<4x2048xf16>, vector<2x510xf16>
    %w = vector.transfer_read %b[%c0, %c0], %f {in_bounds = [true, true]}
        : memref<8x32xf32>, vector<8x32xf32>
    gpu.terminator
  }
  return
}
