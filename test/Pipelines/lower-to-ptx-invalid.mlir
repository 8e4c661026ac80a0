// Payloads tessel-lower-to-ptx refuses, with the reason, before any
// lowering (its first step is tessel-check-kernel-payload).
// RUN: tessel-opt %s --tessel-lower-to-ptx --split-input-file --verify-diagnostics

// An example as written (tensors, no schedule applied) is rejected.
// RUN: not tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir --tessel-lower-to-ptx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNSCHEDULED
// UNSCHEDULED: matmul_relu_256x1024x1024_f32.mlir:4:1: error: function 'matmul_relu' still has tensor arguments: apply a schedule that bufferizes (e.g. --tessel-apply-schedule) before lowering
// UNSCHEDULED-NOT: error:

// Invalid target options are rejected when the pipeline is built, before
// any IR is touched (LLVM would otherwise abort or emit bogus PTX).
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="opt-level=7" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT-LEVEL
// OPT-LEVEL: error: tessel-lower-to-ptx: opt-level must be 0, 1, 2 or 3
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="chip=kepler" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// CHIP: error: tessel-lower-to-ptx: chip 'kepler' is not a supported NVIDIA target
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="chip=gfx90a" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AMD
// AMD: error: tessel-lower-to-ptx: chip 'gfx90a' is not a supported NVIDIA target
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="chip=sm_90 features=+ptx70" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PTX
// PTX: error: tessel-lower-to-ptx: PTX version 7.0 does not support sm_90: use features=+ptx78 or higher
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="chip=sm_90a features=+ptx78" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PTX90A
// PTX90A: PTX version 7.8 does not support sm_90a: use features=+ptx80 or higher
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="features=+sse" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPTX
// NOPTX: features '+sse' name no PTX version (e.g. +ptx80)
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="index-bitwidth=16" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INDEX
// INDEX: error: tessel-lower-to-ptx: index-bitwidth must be 32 or 64

// With 32-bit indices, a 65536 x 65536 f16 matrix (8 GiB) cannot be
// addressed: a located error, not a kernel that wraps around.
// RUN: python3 -c "import sys; sys.path.insert(0, '%tessel_src/python'); from tessel.workload import matmul_relu_ir; print(matmul_relu_ir(65536, 65536, 64, 'f16'))" > %t.big.mlir
// RUN: not tessel-opt %t.big.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="index-bitwidth=32" 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// TOO-BIG: big.mlir:4:1: error: argument #2 of 'matmul_relu' has type 'memref<65536x65536xf16>': its 4294967296 elements need addresses beyond the kernels' 32-bit indices (use index-bitwidth=64)
// So are workspaces the host function allocates and strided arguments that
// span more than their elements.
// RUN: tessel-opt %S/Inputs/index32-buffers.mlir --tessel-lower-to-ptx="index-bitwidth=32" --split-input-file --verify-diagnostics
// RUN: not tessel-opt %S/Inputs/scale-kernel.mlir --tessel-lower-to-ptx="pointer-alignment=3" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALIGN
// ALIGN: error: tessel-lower-to-ptx: pointer-alignment must be a power of two between 1 and 256

// expected-error@below {{function 'on_tensors' still has tensor arguments: apply a schedule that bufferizes (e.g. --tessel-apply-schedule) before lowering}}
func.func @on_tensors(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>)
                     outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}

// -----

// Bufferized, but the work was never mapped to the GPU.
func.func @on_host(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  // expected-error@below {{computation left on the host: the schedule must map all work into gpu.launch}}
  linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>)
                outs(%c : memref<16x16xf32>)
  return
}

// -----

// expected-error@below {{argument #0 of 'dynamic' has type 'memref<?xf32>': dynamic shapes are not supported}}
func.func @dynamic(%a: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @device_malloc(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{memref.alloc inside a GPU kernel would become a device malloc}}
    %tmp = memref.alloc() : memref<64xf32>
    memref.copy %a, %tmp : memref<64xf32> to memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// expected-error@below {{no gpu.launch in the module: nothing to compile to PTX (was a schedule applied?)}}
module {
  func.func @nothing(%a: memref<64xf32>) -> memref<64xf32> {
    return %a : memref<64xf32>
  }
}
