// RUN: tessel-opt %s --pass-pipeline="builtin.module(func.func(tessel-overlap-launches))" --allow-unregistered-dialect | FileCheck %s

// Every launch after the first waits for its predecessor before anything
// else; the first waits for nothing, and none lets its dependents launch
// early.

// CHECK-LABEL: func.func @three_launches
// CHECK:         gpu.launch
// CHECK-NOT:       nvvm.griddepcontrol
// CHECK:           "test.first"
// CHECK:         gpu.launch
// CHECK-NEXT:      nvvm.griddepcontrol wait
// CHECK-NEXT:      "test.second"
// CHECK:         gpu.launch
// CHECK-NEXT:      nvvm.griddepcontrol wait
// CHECK-NEXT:      "test.third"
// CHECK-NOT:     launch_dependents
func.func @three_launches() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    "test.first"() : () -> ()
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    "test.second"() : () -> ()
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    "test.third"() : () -> ()
    gpu.terminator
  }
  return
}

// A single launch is left alone.
// CHECK-LABEL: func.func @one_launch
// CHECK-NOT:     nvvm.griddepcontrol
func.func @one_launch() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    "test.only"() : () -> ()
    gpu.terminator
  }
  return
}

// No launch at all (a host helper, or kernels already outlined): nothing
// to do. The pass once iterated past the end of its empty list of launches
// (UBSan, found by tessel-opt-fuzzer).
// CHECK-LABEL: func.func @no_launch
// CHECK-NEXT:    "test.host"
// CHECK-NEXT:    return
func.func @no_launch() {
  "test.host"() : () -> ()
  return
}
