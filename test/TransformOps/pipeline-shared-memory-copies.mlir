// RUN: tessel-opt %s --transform-interpreter --split-input-file \
// RUN:   --verify-diagnostics | FileCheck %s

// The depth comes from a param: with depth 3, three async copies are issued
// before the loop, the loop waits for all but two groups, and copies run
// three iterations ahead (predicated off at the end).

// CHECK-LABEL: func.func @depth_from_param
// CHECK-COUNT-3: nvgpu.device_async_copy
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_wait %{{.+}} {numGroups = 2 : i32}
// CHECK:           arith.select
// CHECK:           nvgpu.device_async_copy
// CHECK:           scf.yield
func.func @depth_from_param(%global: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %c4 = arith.constant 4 : index
  %shared = memref.alloc() : memref<96xf32, #gpu.address_space<workgroup>>
  scf.for %i = %c0 to %c96 step %c4 {
    %token = nvgpu.device_async_copy %global[%i], %shared[%i], 4
      : memref<?xf32> to memref<96xf32, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %token
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %depth = transform.param.constant 3 : i64 -> !transform.param<i64>
    %p = transform.tessel.pipeline_shared_memory_copies %loop depth %depth
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @bad_depth(%global: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c96 step %c4 {
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %depth = transform.param.constant 0 : i64 -> !transform.param<i64>
    // expected-error @below {{expected depth to be a single integer of at least 1}}
    %p = transform.tessel.pipeline_shared_memory_copies %loop depth %depth
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// Upstream's own precondition: a loop without copies to shared memory.
func.func @no_copies(%global: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %c4 = arith.constant 4 : index
  // expected-error @below {{no shared memory copy}}
  scf.for %i = %c0 to %c96 step %c4 {
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %depth = transform.param.constant 2 : i64 -> !transform.param<i64>
    %p = transform.tessel.pipeline_shared_memory_copies %loop depth %depth
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// A loop shorter than the pipeline: upstream only says "pipelining
// preconditions failed"; the op names the depth and the trip count.
func.func @too_short(%global: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %shared = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
  // expected-note @below {{target loop}}
  scf.for %i = %c0 to %c8 step %c4 {
    %token = nvgpu.device_async_copy %global[%i], %shared[%i], 4
      : memref<?xf32> to memref<8xf32, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %token
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %depth = transform.param.constant 3 : i64 -> !transform.param<i64>
    // expected-error @below {{pipelining depth 3 needs a loop of at least 3 iterations; this loop runs 2}}
    %p = transform.tessel.pipeline_shared_memory_copies %loop depth %depth
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// A loop of one iteration has nothing to overlap: it is returned as it is,
// at any depth, its copy waited for where it was.
// CHECK-LABEL: func.func @one_trip
// CHECK:         scf.for
// CHECK-NEXT:      nvgpu.device_async_copy
// CHECK-NEXT:      nvgpu.device_async_wait
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @one_trip(%global: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %shared = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
  scf.for %i = %c0 to %c4 step %c4 {
    %token = nvgpu.device_async_copy %global[%i], %shared[%i], 4
      : memref<?xf32> to memref<8xf32, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %token
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %depth = transform.param.constant 4 : i64 -> !transform.param<i64>
    %p = transform.tessel.pipeline_shared_memory_copies %loop depth %depth
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}
