// RUN: tessel-opt %s --tessel-lower-math --split-input-file --verify-diagnostics

// What would need CUDA's libdevice is an error at the op, not an
// unresolved extern function when the driver loads the PTX.
func.func @sin(%x: f32) -> f32 {
  // expected-error@below {{'math.sin' has no lowering in Tessel's GPU pipeline (it would need CUDA's libdevice)}}
  %s = math.sin %x : f32
  return %s : f32
}

// -----

func.func @remf(%x: f32, %y: f32) -> f32 {
  // expected-error@below {{'arith.remf' has no lowering in Tessel's GPU pipeline}}
  %r = arith.remf %x, %y : f32
  return %r : f32
}
