// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// A is 8x7 f32: its rows start every 28 bytes, so 16-byte loads of them
// would be misaligned. It is copied into a workspace with 32-float (128-byte)
// rows by a kernel launched first, and the launch reads the copy through
// the same subview. C is written by the launch: it is left alone, and so
// is B, whose 8-float rows are aligned.

// CHECK-LABEL: func.func @reads_a_copy
// CHECK-SAME:    (%[[A:.+]]: memref<8x7xf32>, %[[B:.+]]: memref<7x8xf32>, %[[C:.+]]: memref<8x7xf32>)
// CHECK:         %[[WS:.+]] = gpu.alloc () : memref<8x32xf32>
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}}) threads({{.+}}) in ({{.+}} = %c256{{.*}}, {{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}})
// CHECK:           vector.load %[[A]]
// CHECK:           vector.maskedload %[[A]]
// CHECK:           vector.store {{.+}}, %[[WS]]
// CHECK:           vector.maskedstore %[[WS]]
// CHECK:         gpu.launch
// CHECK:           %[[VIEW:.+]] = memref.subview %[[WS]][0, 0] [8, 7] [1, 1] : memref<8x32xf32> to memref<8x7xf32, strided<[32, 1]>>
// CHECK:           %[[TILE:.+]] = memref.subview %[[VIEW]]
// CHECK:           vector.transfer_read %[[TILE]]
// CHECK:           vector.transfer_read %[[B]]
// CHECK:           vector.transfer_write {{.+}}, %[[C]]
// CHECK:         gpu.dealloc %[[WS]] : memref<8x32xf32>
func.func @reads_a_copy(%a: memref<8x7xf32>, %b: memref<7x8xf32>, %c: memref<8x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %tile = memref.subview %a[%tx, 0] [4, 7] [1, 1] : memref<8x7xf32> to memref<4x7xf32, strided<[7, 1], offset: ?>>
    %v = vector.transfer_read %tile[%c0, %c0], %pad : memref<4x7xf32, strided<[7, 1], offset: ?>>, vector<4x4xf32>
    %w = vector.transfer_read %b[%c0, %c0], %pad : memref<7x8xf32>, vector<4x4xf32>
    %s = arith.addf %v, %w : vector<4x4xf32>
    vector.transfer_write %s, %c[%c0, %c0] : vector<4x4xf32>, memref<8x7xf32>
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tessel.copy_to_aligned_rows %launch alignment 16 : !transform.any_op
    transform.yield
  }
}

// -----

// A (8x7) and B (7x9) both have misaligned rows: one copy kernel serves
// both (a launch costs microseconds), its first 8 blocks copying A's rows
// and the next 7 B's, each into its own workspace.

// CHECK-LABEL: func.func @copies_both
// CHECK-SAME:    (%[[A:.+]]: memref<8x7xf32>, %[[B:.+]]: memref<7x9xf32>, %[[C:.+]]: memref<8x8xf32>)
// CHECK:         %[[WSA:.+]] = gpu.alloc () : memref<8x32xf32>
// CHECK:         %[[WSB:.+]] = gpu.alloc () : memref<7x32xf32>
// CHECK:         gpu.launch blocks(%[[BX:.+]], {{.+}}, {{.+}}) in ({{.+}} = %c15{{.*}}, {{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}})
// CHECK:           %[[INA:.+]] = arith.cmpi ult, %[[BX]], %c8{{[_0-9]*}}
// CHECK:           scf.if %[[INA]]
// CHECK:             vector.load %[[A]]
// CHECK:           %[[BELOW:.+]] = arith.cmpi ult, %[[BX]], %c15{{[_0-9]*}}
// CHECK:           %[[ABOVE:.+]] = arith.cmpi uge, %[[BX]], %c8{{[_0-9]*}}
// CHECK:           %[[INB:.+]] = arith.andi %[[BELOW]], %[[ABOVE]]
// CHECK:           scf.if %[[INB]]
// CHECK:             arith.subi %[[BX]], %c8{{[_0-9]*}}
// CHECK:             vector.load %[[B]]
// CHECK-NOT:     gpu.launch
// CHECK:         gpu.launch
// CHECK-DAG:       memref.subview %[[WSA]][
// CHECK-DAG:       memref.subview %[[WSB]][
// CHECK:         gpu.dealloc %[[WSA]]
// CHECK:         gpu.dealloc %[[WSB]]
func.func @copies_both(%a: memref<8x7xf32>, %b: memref<7x9xf32>, %c: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.transfer_read %a[%c0, %c0], %pad : memref<8x7xf32>, vector<4x4xf32>
    %w = vector.transfer_read %b[%c0, %c0], %pad : memref<7x9xf32>, vector<4x4xf32>
    %s = arith.addf %v, %w : vector<4x4xf32>
    vector.transfer_write %s, %c[%c0, %c0] : vector<4x4xf32>, memref<8x8xf32>
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tessel.copy_to_aligned_rows %launch alignment 16 : !transform.any_op
    transform.yield
  }
}

// -----

// Buffers smaller than min_elements stay: the copy would cost more than it
// saves.

// CHECK-LABEL: func.func @too_small
// CHECK-NOT:     gpu.alloc
func.func @too_small(%a: memref<8x7xf32>, %c: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.transfer_read %a[%c0, %c0], %pad : memref<8x7xf32>, vector<4x4xf32>
    vector.transfer_write %v, %c[%c0, %c0] : vector<4x4xf32>, memref<8x8xf32>
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tessel.copy_to_aligned_rows %launch alignment 16 min_elements 65536 : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_launch() {
  // expected-note@below {{target op}}
  %c0 = arith.constant 0 : index
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{expected a gpu.launch}}
    transform.tessel.copy_to_aligned_rows %op alignment 16 : !transform.any_op
    transform.yield
  }
}
