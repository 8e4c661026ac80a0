// RUN: tessel-opt %s --tessel-check-kernel-payload --split-input-file --verify-diagnostics

// expected-error@below {{function 'on_tensors' still has tensor arguments: apply a schedule that bufferizes (e.g. --tessel-apply-schedule) before lowering}}
func.func @on_tensors(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// The index of the offending argument is reported.
// expected-error@below {{argument #1 of 'dynamic' has type 'memref<?x16xf32>': dynamic shapes are not supported}}
func.func @dynamic(%a: memref<16x16xf32>, %b: memref<?x16xf32>) {
  return
}

// -----

func.func @tensor_on_host(%a: memref<4xf32>) {
  // expected-error@below {{tensor computation left outside a GPU kernel: the schedule must bufferize and map all work to gpu.launch}}
  %t = bufferization.to_tensor %a : memref<4xf32> to tensor<4xf32>
  return
}

// -----

func.func @linalg_on_host(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error@below {{computation left on the host: the schedule must map all work into gpu.launch}}
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @scf_on_host(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error@below {{computation left on the host: the schedule must map all work into gpu.launch}}
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
  }
  return
}

// -----

func.func @vector_on_host(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@below {{computation left on the host: the schedule must map all work into gpu.launch}}
  %v = vector.load %a[%c0] : memref<4xf32>, vector<4xf32>
  return
}

// -----

func.func @copy_on_host(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error@below {{computation left on the host: the schedule must map all work into gpu.launch}}
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Only the first problem of a function is reported, even when a launch
// follows.
func.func @host_work_then_launch(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-error@below {{computation left on the host}}
  memref.store %zero, %a[%c0] : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @alloc_in_kernel(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{memref.alloc inside a GPU kernel would become a device malloc: keep the value in registers or use memref.alloca / workgroup memory}}
    %tmp = memref.alloc() : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// expected-error@below {{no gpu.launch in the module: nothing to compile to PTX (was a schedule applied?)}}
module {
  func.func @no_launch(%a: memref<4xf32>) -> memref<4xf32> {
    return %a : memref<4xf32>
  }
}

// -----

// A buffer whose size in bytes int64 cannot hold (K = 2^62 compiled and
// exported, with any index width).
// expected-error@below {{argument #0 of 'beyond_int64' has type 'memref<300x4611686018427387904xf32>': its size in bytes is beyond what a 64-bit integer holds}}
func.func @beyond_int64(%a: memref<300x4611686018427387904xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// Elements that fit, bytes that do not: 2^62 f32 values.
func.func @alloc_beyond_int64() {
  // expected-error@below {{'gpu.alloc' makes a buffer of type 'memref<4611686018427387904xf32>': its size in bytes is beyond what a 64-bit integer holds}}
  %m = gpu.alloc () : memref<4611686018427387904xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
