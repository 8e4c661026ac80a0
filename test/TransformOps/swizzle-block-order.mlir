// RUN: tessel-opt %s --transform-interpreter --split-input-file \
// RUN:   --verify-diagnostics --allow-unregistered-dialect | FileCheck %s

// An 8 x 6 grid in groups of 4 block rows: every use of the block ids reads
// the remapped ids; group 1 leaves the launch alone.

// CHECK-LABEL: func.func @grouped
// CHECK:         gpu.launch
// CHECK:           %[[X:.+]] = gpu.block_id x
// CHECK:           %[[Y:.+]] = gpu.block_id y
// CHECK:           %[[YX:.+]] = arith.muli %[[Y]], %c8
// CHECK:           %[[L:.+]] = arith.addi %[[YX]], %[[X]]
// CHECK:           %[[G:.+]] = arith.divui %[[L]], %c32
// CHECK:           %[[FIRST:.+]] = arith.muli %[[G]], %c4
// CHECK:           %[[LEFT:.+]] = arith.subi %c6{{.*}}, %[[FIRST]]
// CHECK:           %[[ROWS:.+]] = arith.minui %[[LEFT]], %c4
// CHECK:           %[[IN:.+]] = arith.remui %[[L]], %c32
// CHECK:           %[[R:.+]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK:           %[[NY:.+]] = arith.addi %[[FIRST]], %[[R]]
// CHECK:           %[[NX:.+]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK-NOT:       gpu.block_id
// CHECK:           "test.use"(%[[NX]], %[[NY]])
// CHECK-LABEL: func.func @ungrouped
// CHECK:           %[[X1:.+]] = gpu.block_id x
// CHECK:           %[[Y1:.+]] = gpu.block_id y
// CHECK-NEXT:      "test.use"(%[[X1]], %[[Y1]])
func.func @grouped() {
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c6, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = gpu.block_id x
    %y = gpu.block_id y
    "test.use"(%x, %y) : (index, index) -> ()
    gpu.terminator
  }
  return
}
func.func @ungrouped() {
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c6, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = gpu.block_id x
    %y = gpu.block_id y
    "test.use"(%x, %y) : (index, index) -> ()
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launches = transform.structured.match ops{["gpu.launch"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %g = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.tessel.swizzle_block_order %launches group %g
        : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

func.func @dynamic_grid(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-note @below {{target op}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %g = transform.param.constant 8 : i64 -> !transform.param<i64>
    // expected-error @below {{expected a gpu.launch with a constant grid}}
    transform.tessel.swizzle_block_order %launch group %g
        : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}
