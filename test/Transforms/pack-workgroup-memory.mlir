// RUN: tessel-opt %s --tessel-pack-workgroup-memory --split-input-file \
// RUN:   --verify-diagnostics --allow-unregistered-dialect | FileCheck %s
// Errors as a user sees them, with the operation printed: the size error
// once crashed there, printing an allocation it had already erased.
// RUN: not tessel-opt %s --tessel-pack-workgroup-memory --split-input-file \
// RUN:   --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=PRINTED
// PRINTED: error: the launch's workgroup allocations exceed 2147483647 bytes
// PRINTED-NEXT: memref.alloc()
// PRINTED-NEXT: ^
// PRINTED-NEXT: note: see current operation: %{{.*}} = "memref.alloc"()

// Two workgroup buffers of one launch become views of its dynamic shared
// memory, one after the other at 16-byte aligned offsets (3x16x20 f16 =
// 1920 bytes, then 6 f32 = 24 bytes rounded up to 16); their deallocation
// goes; global allocations are left to tessel-check-kernel-payload.

// CHECK-LABEL: func.func @two_buffers
// CHECK:         %[[SIZE:.+]] = arith.constant 1944 : i32
// CHECK:         gpu.launch {{.+}} dynamic_shared_memory_size %[[SIZE]]
// CHECK:           %[[BASE:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[O0:.+]] = arith.constant 0 : index
// CHECK:           %[[A:.+]] = memref.view %[[BASE]][%[[O0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x16x20xf16, #gpu.address_space<workgroup>>
// CHECK:           %[[O1:.+]] = arith.constant 1920 : index
// CHECK:           %[[B:.+]] = memref.view %[[BASE]][%[[O1]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<6xf32, #gpu.address_space<workgroup>>
// CHECK:           "test.use"(%[[A]], %[[B]])
// CHECK-NOT:       memref.dealloc
// CHECK:           memref.alloc() : memref<4xf32>
func.func @two_buffers() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<3x16x20xf16, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<6xf32, #gpu.address_space<workgroup>>
    "test.use"(%a, %b) : (memref<3x16x20xf16, #gpu.address_space<workgroup>>, memref<6xf32, #gpu.address_space<workgroup>>) -> ()
    memref.dealloc %a : memref<3x16x20xf16, #gpu.address_space<workgroup>>
    %g = memref.alloc() : memref<4xf32>
    "test.use"(%g) : (memref<4xf32>) -> ()
    gpu.terminator
  }
  return
}

// -----

func.func @dynamic(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{must have a static shape and an identity layout}}
    %a = memref.alloc(%n) : memref<?xf16, #gpu.address_space<workgroup>>
    "test.use"(%a) : (memref<?xf16, #gpu.address_space<workgroup>>) -> ()
    gpu.terminator
  }
  return
}

// -----

// Vector elements take their whole size; index and complex elements,
// whose layout the pass does not know, are refused where they are
// allocated (they reached getIntOrFloatBitWidth and crashed).

// CHECK-LABEL: func.func @vector_elements
// CHECK:         arith.constant 128 : i32
// CHECK:         memref.view {{.+}} to memref<8xvector<4xf32>, #gpu.address_space<workgroup>>
func.func @vector_elements() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<8xvector<4xf32>, #gpu.address_space<workgroup>>
    "test.use"(%a) : (memref<8xvector<4xf32>, #gpu.address_space<workgroup>>) -> ()
    gpu.terminator
  }
  return
}

// -----

func.func @index_elements() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{elements must be integers or floats of whole bytes, or static vectors of them}}
    %a = memref.alloc() : memref<4xindex, #gpu.address_space<workgroup>>
    "test.use"(%a) : (memref<4xindex, #gpu.address_space<workgroup>>) -> ()
    gpu.terminator
  }
  return
}

// -----

func.func @complex_elements() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{elements must be integers or floats of whole bytes}}
    %a = memref.alloc() : memref<4xcomplex<f32>, #gpu.address_space<workgroup>>
    "test.use"(%a) : (memref<4xcomplex<f32>, #gpu.address_space<workgroup>>) -> ()
    gpu.terminator
  }
  return
}

// -----

// 2 GiB and more cannot be a launch's 32-bit dynamic shared memory size
// (it was stored as an i32 constant: 4 GiB became 0).
func.func @too_large() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<536870912xf16, #gpu.address_space<workgroup>>
    // expected-error @below {{the launch's workgroup allocations exceed 2147483647 bytes}}
    %b = memref.alloc() : memref<268435456xf32, #gpu.address_space<workgroup>>
    "test.use"(%a, %b) : (memref<536870912xf16, #gpu.address_space<workgroup>>, memref<268435456xf32, #gpu.address_space<workgroup>>) -> ()
    gpu.terminator
  }
  return
}
