// RUN: tessel-opt %s --split-input-file --tessel-lower-math | FileCheck %s

// On sm_75 and later, an f32 tanh whose every use is rounded to 16 bits
// (GELU-tanh into a bf16 output) is the chip's tanh.approx.f32, lane by
// lane; one whose result stays f32 keeps the polynomial.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" {{.*}} : (f32) -> f32
// CHECK:         vector.from_elements {{.*}} : vector<2xf32>
// CHECK:         arith.truncf {{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-LABEL: func.func @f32_result
// CHECK-NOT:     llvm.inline_asm
// CHECK-NOT:     math.tanh
// CHECK:         return
module attributes {tessel.chip = "sm_90a"} {
  func.func @gelu_tanh(%x: vector<2xf32>) -> vector<2xbf16> {
    %half = arith.constant dense<0.5> : vector<2xf32>
    %one = arith.constant dense<1.0> : vector<2xf32>
    %t = math.tanh %x : vector<2xf32>
    %s = arith.addf %t, %one : vector<2xf32>
    %h = arith.mulf %s, %half : vector<2xf32>
    %g = arith.mulf %h, %x : vector<2xf32>
    %r = arith.truncf %g : vector<2xf32> to vector<2xbf16>
    return %r : vector<2xbf16>
  }
  func.func @f32_result(%x: f32) -> (f32, f16) {
    %t = math.tanh %x : f32
    %r = arith.truncf %t : f32 to f16
    return %t, %r : f32, f16
  }
}

// -----

// Without a recorded chip, or before sm_75, the polynomial.
// CHECK-LABEL: func.func @sm70
// CHECK-NOT:     llvm.inline_asm
// CHECK-NOT:     math.tanh
// CHECK:         return
module attributes {tessel.chip = "sm_70"} {
  func.func @sm70(%x: f32) -> f16 {
    %t = math.tanh %x : f32
    %r = arith.truncf %t : f32 to f16
    return %r : f16
  }
}

// -----

// CHECK-LABEL: func.func @no_chip
// CHECK-NOT:     llvm.inline_asm
// CHECK-NOT:     math.tanh
// CHECK:         return
func.func @no_chip(%x: f32) -> f16 {
  %t = math.tanh %x : f32
  %r = arith.truncf %t : f32 to f16
  return %r : f16
}
