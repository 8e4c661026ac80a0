// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-check-kernel-payload

// Functions scheduled for different chips cannot share a module's target.
func.func @a(%m: memref<4xf32>) attributes {tessel.schedule = {path = "w.mlir", target_chip = "sm_90a"}} {
  return
}
// expected-error@below {{function 'b' was scheduled for sm_100a, function 'a' for sm_90a: compile them separately, or choose a chip= both run on}}
func.func @b(%m: memref<4xf32>) attributes {tessel.schedule = {path = "x.mlir", target_chip = "sm_100a"}} {
  return
}

// -----

// A declared target that is not a chip.
// expected-error@below {{chip 'sm_9000' is not a chip Tessel compiles for (sm_70 ... sm_120a)}}
module {
  func.func @a(%m: memref<4xf32>) attributes {tessel.schedule = {path = "w.mlir", target_chip = "sm_9000"}} {
    return
  }
}
