// RUN: tessel-opt %s --tessel-lower-math | FileCheck %s

// The transcendental functions an epilogue uses become arith code (f32
// polynomials; 16-bit math computed in f32), and floor, absf, copysign and
// fma exact arith forms: no math op is left for the NVVM conversion to
// turn into a libdevice call.
// CHECK-LABEL: func.func @gelu_silu
// CHECK-NOT:     math.
// CHECK:         return
func.func @gelu_silu(%x: vector<4xf32>, %h: f16) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, f16) {
  %t = math.tanh %x : vector<4xf32>
  %e = math.erf %x : vector<4xf32>
  %n = math.exp %x : vector<4xf32>
  %l = math.log1p %h : f16
  return %t, %e, %n, %l : vector<4xf32>, vector<4xf32>, vector<4xf32>, f16
}

// floor (2^23 = 0x4B000000) steps down where the integer conversion rounded up, and keeps
// values too large to have a fraction (and NaN) as they are.
// CHECK-LABEL: func.func @exact
// CHECK-SAME:    (%[[X:.+]]: f32, %[[Y:.+]]: f32)
// CHECK-DAG:     %[[BIG:.+]] = arith.constant 0x4B000000 : f32
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[I:.+]] = arith.fptosi %[[X]] : f32 to i64
// CHECK:         %[[T:.+]] = arith.sitofp %[[I]] : i64 to f32
// CHECK:         %[[OVER:.+]] = arith.cmpf ogt, %[[T]], %[[X]] : f32
// CHECK:         %[[DOWN:.+]] = arith.subf %[[T]], %[[ONE]] : f32
// CHECK:         arith.select %[[OVER]], %[[DOWN]], %[[T]] : f32
// CHECK:         arith.andi {{.*}} : i32
// CHECK:         vector.fma {{.*}} : vector<1xf32>
// CHECK-NOT:     math.
// CHECK:         return
func.func @exact(%x: f32, %y: f32) -> (f32, f32, f32) {
  %f = math.floor %x : f32
  %a = math.absf %y : f32
  %m = math.fma %x, %y, %f : f32
  return %f, %a, %m : f32, f32, f32
}
