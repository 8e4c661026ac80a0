// The chip the entry check settles: chip=, else the target the payload's
// schedules declare (target_chip in tessel.schedule), else default-chip;
// recorded as the module's tessel.chip.
// RUN: tessel-opt %s --split-input-file --tessel-check-kernel-payload="default-chip=sm_90" | FileCheck %s
// RUN: not tessel-opt %s --split-input-file \
// RUN:   --tessel-check-kernel-payload="chip=sm_80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: module attributes {tessel.chip = "sm_90a"}
// SM80: check-kernel-payload-chip.mlir:[[# @LINE + 1]]:1: error: function 'wgmma' was scheduled with 's.mlir', whose kernels cannot be compiled for sm_80: the schedule needs sm_90a (its tessel.target_chip); pass chip=sm_90a or leave chip unset (sm_90a code runs on sm_90 GPUs such as the H100)
func.func @wgmma(%a: memref<4xf32>) attributes {tessel.schedule = {path = "s.mlir", target_chip = "sm_90a"}} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    gpu.terminator
  }
  return
}

// -----

// Without a declared target: default-chip. A tessel.min_chip is met.
// CHECK-LABEL: module attributes {tessel.chip = "sm_90"}
func.func @mma(%a: memref<4xf32>) attributes {tessel.schedule = {path = "m.mlir", min_chip = "sm_80"}} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    gpu.terminator
  }
  return
}
