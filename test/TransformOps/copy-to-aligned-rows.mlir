// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// A is 8x7 f32: its rows start every 28 bytes, so 16-byte loads of them
// would be misaligned. It is copied into a workspace with 32-float (128-byte)
// rows by a kernel launched first, and the launch reads the copy through
// the same subview. C is written by the launch: it is left alone, and so
// is B, whose 8-float rows are aligned. The copy kernel's threads take 4
// chunks each (16 chunks here: one block); for each they load the two
// aligned 16-byte granules around it from A, assumed 16-byte aligned, all
// loads before the stores, and store whole chunks into the workspace.

// CHECK-LABEL: func.func @reads_a_copy
// CHECK-SAME:    (%[[A:.+]]: memref<8x7xf32>, %[[B:.+]]: memref<7x8xf32>, %[[C:.+]]: memref<8x7xf32>)
// CHECK:         %[[WS:.+]] = gpu.alloc () : memref<8x32xf32>
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}}) threads({{.+}}) in ({{.+}} = %c256{{.*}}, {{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}})
// CHECK:           %[[ALIGNED:.+]] = memref.assume_alignment %[[A]], 16
// CHECK:           %[[FLAT:.+]] = memref.reinterpret_cast %[[ALIGNED]] to offset: [0], sizes: [56], strides: [1]
// CHECK-COUNT-8:   vector.load %[[FLAT]][{{.+}}] {alignment = 16 : i64} : memref<56xf32>, vector<4xf32>
// CHECK-NOT:       vector.load
// CHECK-COUNT-4:   vector.store {{.+}}, %[[WS]][{{.+}}] {alignment = 16 : i64} : memref<8x32xf32>, vector<4xf32>
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
// both (a launch costs microseconds), its first block copying A's 16
// chunks and the next B's 21, each into its own workspace.

// CHECK-LABEL: func.func @copies_both
// CHECK-SAME:    (%[[A:.+]]: memref<8x7xf32>, %[[B:.+]]: memref<7x9xf32>, %[[C:.+]]: memref<8x8xf32>)
// CHECK:         %[[WSA:.+]] = gpu.alloc () : memref<8x32xf32>
// CHECK:         %[[WSB:.+]] = gpu.alloc () : memref<7x32xf32>
// CHECK:         gpu.launch blocks(%[[BX:[^,]+]], {{.+}}, {{.+}}) in ({{.+}} = %c2{{.*}}, {{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}})
// CHECK:           %[[INA:.+]] = arith.cmpi ult, %[[BX]], %c1{{[_0-9]*}}
// CHECK:           scf.if %[[INA]]
// CHECK:             memref.assume_alignment %[[A]], 16
// CHECK:             vector.store {{.+}}, %[[WSA]]
// CHECK:           %[[BELOW:.+]] = arith.cmpi ult, %[[BX]], %c2{{[_0-9]*}}
// CHECK:           %[[ABOVE:.+]] = arith.cmpi uge, %[[BX]], %c1{{[_0-9]*}}
// CHECK:           %[[INB:.+]] = arith.andi %[[BELOW]], %[[ABOVE]]
// CHECK:           scf.if %[[INB]]
// CHECK:             arith.subi %[[BX]], %c1{{[_0-9]*}}
// CHECK:             memref.assume_alignment %[[B]], 16
// CHECK:             vector.store {{.+}}, %[[WSB]]
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

// A tall, narrow source: 3000x3 f32 is 3000 one-chunk rows, 1024 chunks to
// a block, so three blocks; a thread's fourth chunk in the last block lies
// past the last row and is not stored. A block per row (the first copy
// kernel) left 255 of 256 threads idle here.

// CHECK-LABEL: func.func @tall
// CHECK:         %[[WS:.+]] = gpu.alloc () : memref<3000x32xf32>
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}} = %c3{{.*}}, {{.+}} = %c1{{.*}}, {{.+}} = %c1{{.*}}) threads({{.+}}) in ({{.+}} = %c256{{.*}},
// CHECK-COUNT-4:   arith.cmpi ult, {{.+}}, %c3000{{[_0-9]*}} : index
// CHECK:           vector.load
// CHECK:           scf.if %{{[0-9]+}} {
// CHECK-NEXT:        vector.store {{.+}}, %[[WS]]
func.func @tall(%a: memref<3000x3xf32>, %c: memref<3000x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.transfer_read %a[%c0, %c0], %pad : memref<3000x3xf32>, vector<4x4xf32>
    vector.transfer_write %v, %c[%c0, %c0] : vector<4x4xf32>, memref<3000x4xf32>
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

// 64-bit elements are not realigned from granules: each chunk (two f64) is
// loaded from A itself, masked at a row's end, with no alignment assumed
// of A.

// CHECK-LABEL: func.func @wide_elements
// CHECK-SAME:    (%[[A:.+]]: memref<4x3xf64>
// CHECK-NOT:     memref.assume_alignment
// CHECK:         gpu.launch
// CHECK:           vector.load %[[A]]
// CHECK:           vector.maskedload %[[A]]
// CHECK-NOT:     memref.assume_alignment
func.func @wide_elements(%a: memref<4x3xf64>, %c: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f64
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x3xf64>, vector<4x4xf64>
    vector.transfer_write %v, %c[%c0, %c0] : vector<4x4xf64>, memref<4x4xf64>
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

// -----

// Rows of 1021 f32 round up to 1024, 4 KiB apart: the copy takes one more
// 128-byte granule (1056), so that a tile's rows do not fall in the same
// memory partitions and cache sets (14702x8171x6267 f32 ran 1.85x faster).
// 1099 rounds up to 1120 (4480 bytes) and is left as it is.

// CHECK-LABEL: func.func @strides
// CHECK:         gpu.alloc () : memref<2x1056xf32>
// CHECK:         gpu.alloc () : memref<2x1120xf32>
func.func @strides(%a: memref<2x1021xf32>, %b: memref<2x1099xf32>, %c: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.transfer_read %a[%c0, %c0], %pad : memref<2x1021xf32>, vector<2x4xf32>
    %w = vector.transfer_read %b[%c0, %c0], %pad : memref<2x1099xf32>, vector<2x4xf32>
    %s = arith.addf %v, %w : vector<2x4xf32>
    vector.transfer_write %s, %c[%c0, %c0] : vector<2x4xf32>, memref<2x4xf32>
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
