// What NVPTX cannot compile is refused at the entry of the PTX lowering,
// located, instead of aborting in instruction selection or the PTX printer
// (LLVM ERROR: Cannot select / Symbol name with unsupported characters).
//
// RUN: tessel-opt %s --tessel-check-kernel-payload="chip=sm_75" --split-input-file --verify-diagnostics
// The whole pipeline: the mma.sync schedule on sm_75 and sm_70, and the
// wgmma schedule on sm_90 without the `a` features (wgmma is sm_90a's), are
// refused at the function, before any lowering, from the chips the
// schedules declare (tessel.min_chip, tessel.target_chip).
// RUN: not tessel-opt %S/Inputs/matmul-relu-3x7x9-f16.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir" \
// RUN:   --tessel-lower-to-ptx=chip=sm_75 2>&1 | FileCheck %s --check-prefix=MMA75
// RUN: not tessel-opt %S/Inputs/matmul-relu-3x7x9-f16.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir" \
// RUN:   --tessel-lower-to-ptx=chip=sm_70 2>&1 | FileCheck %s --check-prefix=MMA70
// RUN: not tessel-opt %S/Inputs/matmul-relu-3x7x9-f16.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   --tessel-lower-to-ptx=chip=sm_90 2>&1 | FileCheck %s --check-prefix=WGMMA90
// MMA75: matmul-relu-3x7x9-f16.mlir:4:1: error: function 'matmul_relu' was scheduled with '{{.*}}matmul_relu_mma.mlir', whose kernels cannot be compiled for sm_75: the schedule needs sm_80 or later (its tessel.min_chip)
// MMA70: matmul-relu-3x7x9-f16.mlir:4:1: error: {{.*}} cannot be compiled for sm_70: the schedule needs sm_80 or later
// WGMMA90: matmul-relu-3x7x9-f16.mlir:4:1: error: {{.*}} cannot be compiled for sm_90: the schedule needs sm_90a (its tessel.target_chip); pass chip=sm_90a or leave chip unset
// RUN: sed '/expected-error/d' %s > %t.mlir
// RUN: not tessel-opt %t.mlir --split-input-file --tessel-check-kernel-payload="chip=sm_80" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEWER
// RUN: not tessel-opt %t.mlir --split-input-file --tessel-check-kernel-payload="chip=sm_90" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEWER
// RUN: not tessel-opt %t.mlir --split-input-file --tessel-check-kernel-payload="chip=sm_100a" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEWER

// Function names become kernel names: `@"matmul relu"`, names with `-`,
// `/` or non-ASCII characters, and names starting with a digit are refused
// whatever the chip.

// expected-error@below {{function name 'matmul relu' is not a PTX identifier (letters, digits, '_' and '$', not starting with a digit): its kernels are named after it}}
func.func @"matmul relu"(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// expected-error@below {{function name 'layer-1/matmul' is not a PTX identifier}}
func.func @"layer-1/matmul"(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// expected-error@below {{function name 'matmul_é' is not a PTX identifier}}
func.func @"matmul_é"(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// Element types wider than 64 bits have no PTX register type.

func.func @f128(%a: memref<4xf128>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{values of type 'memref<4xf128>': NVPTX has no floating-point type wider than 64 bits}}
    %x = memref.load %a[%c0] : memref<4xf128>
    gpu.terminator
  }
  return
}

// -----

func.func @f80(%a: memref<4xf80>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{NVPTX has no floating-point type wider than 64 bits}}
    %x = memref.load %a[%c0] : memref<4xf80>
    gpu.terminator
  }
  return
}

// -----

func.func @i128(%a: memref<4xi128>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{NVPTX has no integer type wider than 64 bits}}
    %x = memref.load %a[%c0] : memref<4xi128>
    gpu.terminator
  }
  return
}

// -----

// Operations the chip lacks: cp.async needs sm_80 (the mma.sync schedule
// on sm_75 reached NVPTX and aborted); sm_80 and sm_90 have it.
// NEWER: error: values of type 'memref<4xi128>'
// NEWER-NOT: needs sm_

func.func @cp_async(%a: memref<128xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %s = memref.alloc() : memref<128xf16, #gpu.address_space<workgroup>>
    // expected-error@below {{'nvgpu.device_async_copy' needs sm_80 or later; the chip is sm_75 (choose a schedule for it, or another chip=)}}
    %t = nvgpu.device_async_copy %a[%c0], %s[%c0], 8 : memref<128xf16> to memref<128xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
