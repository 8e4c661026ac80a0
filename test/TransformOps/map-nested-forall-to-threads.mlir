// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics --cse \
// RUN:   | FileCheck %s

// (--cse merges the duplicate constants left by the mapping, so that launch
// sizes can be matched by value.)

// The block size is inferred per dimension as the largest trip count of the
// thread-mapped foralls: x = max(8, 16), y = 4. Threads outside a smaller
// forall are predicated off, and a barrier follows each forall.

// CHECK-LABEL: func.func @two_foralls
// CHECK-SAME:    (%[[X:.+]]: memref<32x32xf32>, %[[Y:.+]]: memref<32x32xf32>)
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]])
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C16]], {{[^=]+}} = %[[C4]], {{[^=]+}} = %[[C1]])
// CHECK-NOT:       scf.forall
// CHECK:           %[[TX:.+]] = gpu.thread_id x
// CHECK:           %[[TY:.+]] = gpu.thread_id y
// CHECK:           %[[C8:.+]] = arith.constant 8 : index
// CHECK:           %[[IN0:.+]] = arith.cmpi ult, %[[TX]], %[[C8]] : index
// CHECK:           scf.if %[[IN0]] {
// CHECK:             memref.load %[[X]][%[[TY]], %[[TX]]]
// CHECK:             memref.store %{{.+}}, %[[Y]][%[[TY]], %[[TX]]]
// CHECK:           }
// CHECK:           gpu.barrier
// CHECK:           %[[IN1:.+]] = arith.cmpi ult, %[[TY]], %[[C1]] : index
// CHECK:           scf.if %[[IN1]] {
// CHECK:             memref.load %[[X]][%[[TX]], %[[TX]]]
// CHECK:           }
// CHECK:           gpu.barrier
// CHECK-NOT:       scf.forall
// CHECK:           gpu.terminator
func.func @two_foralls(%x: memref<32x32xf32>, %y: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  // expected-remark@below {{mapped}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.forall (%i, %j) in (4, 8) {
      %v = memref.load %x[%i, %j] : memref<32x32xf32>
      memref.store %v, %y[%i, %j] : memref<32x32xf32>
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    scf.forall (%i) in (16) {
      %v = memref.load %x[%i, %i] : memref<32x32xf32>
      memref.store %v, %y[%i, %i] : memref<32x32xf32>
    } {mapping = [#gpu.thread<x>]}
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    // The result is the updated launch.
    transform.debug.emit_remark_at %mapped, "mapped" : !transform.any_op
    transform.yield
  }
}

// -----

// Three dimensions; the block mapping of the launch's grid is left alone,
// and a nested thread forall sets the block size even below other ops.

// CHECK-LABEL: func.func @xyz
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C3]], {{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]])
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C8]], {{[^=]+}} = %[[C4]], {{[^=]+}} = %[[C2]])
// CHECK-NOT:       scf.forall
// CHECK-DAG:       %[[TX:.+]] = gpu.thread_id x
// CHECK-DAG:       %[[TY:.+]] = gpu.thread_id y
// CHECK-DAG:       %[[TZ:.+]] = gpu.thread_id z
// CHECK-NOT:       scf.if
// CHECK:           memref.store %{{.+}}, %{{.+}}[%[[TZ]], %[[TY]], %[[TX]]]
func.func @xyz(%x: memref<2x4x8xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %true = arith.constant true
    scf.if %true {
      %zero = arith.constant 0.0 : f32
      scf.forall (%k, %i, %j) in (2, 4, 8) {
        memref.store %zero, %x[%k, %i, %j] : memref<2x4x8xf32>
      } {mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>]}
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The largest block the GPU allows: 1024 threads.

// CHECK-LABEL: func.func @max_threads
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK:         gpu.launch
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C32]], {{[^=]+}} = %[[C32]], {{[^=]+}} = %[[C1]])
func.func @max_threads(%x: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    scf.forall (%i, %j) in (32, 32) {
      memref.store %zero, %x[%i, %j] : memref<32x32xf32>
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
