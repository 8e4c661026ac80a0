// RUN: tessel-opt %s --transform-interpreter --split-input-file --verify-diagnostics \
// RUN:   | FileCheck %s

func.func @not_a_launch(%x: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-note@below {{target op}}
  scf.forall (%i) in (32) {
    memref.store %zero, %x[%i] : memref<32xf32>
  } {mapping = [#gpu.thread<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %forall = transform.structured.match ops{["scf.forall"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{expected a gpu.launch}}
    transform.tessel.map_nested_forall_to_threads %forall
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Foralls mapped to blocks, warps or linear thread ids do not count.

func.func @no_thread_forall(%x: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note@below {{target op}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    scf.forall (%i) in (32) {
      memref.store %zero, %x[%i] : memref<32xf32>
    } {mapping = [#gpu.thread<linear_dim_0>]}
    scf.forall (%i) in (32) {
      memref.store %zero, %x[%i] : memref<32xf32>
    } {mapping = [#gpu.warp<x>]}
    scf.forall (%i) in (32) {
      memref.store %zero, %x[%i] : memref<32xf32>
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{no scf.forall mapped to #gpu.thread in the launch}}
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @dynamic_trip_count(%x: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    // expected-note@below {{scf.forall}}
    scf.forall (%i) in (%n) {
      memref.store %zero, %x[%i] : memref<?xf32>
    } {mapping = [#gpu.thread<x>]}
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{cannot infer the block size from a thread-mapped scf.forall with a dynamic trip count}}
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 64 x 32 = 2048 threads.

func.func @too_many_threads(%x: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note@below {{inferred block size 32 x 64 x 1 (2048 threads) from the thread tiling of this launch}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    scf.forall (%i, %j) in (64, 32) {
      memref.store %zero, %x[%i, %j] : memref<64x32xf32>
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{block_dims = (32, 64, 1). It is larger than the limits.}}
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Within 1024 threads, but z is limited to 64.

func.func @z_too_large(%x: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note@below {{inferred block size 1 x 1 x 128 (128 threads)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    scf.forall (%k) in (128) {
      memref.store %zero, %x[%k] : memref<128xf32>
    } {mapping = [#gpu.thread<z>]}
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{block_dims = (1, 1, 128). It is larger than the limits.}}
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The failures are silenceable: suppressed, the sequence goes on and the
// launch is left as it was.

// CHECK-LABEL: func.func @suppressed
// CHECK:         %[[C1:.+]] = arith.constant 1 : index
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]])
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]], {{[^=]+}} = %[[C1]])
// CHECK:           scf.forall (%{{.+}}, %{{.+}}) in (64, 32)
// CHECK:           } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}

func.func @suppressed(%x: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  // expected-remark@below {{still here}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    scf.forall (%i, %j) in (64, 32) {
      memref.store %zero, %x[%i, %j] : memref<64x32xf32>
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    transform.sequence %arg0 : !transform.any_op failures(suppress) {
    ^bb0(%root: !transform.any_op):
      transform.tessel.map_nested_forall_to_threads %launch
          : (!transform.any_op) -> !transform.any_op
    }
    // The operand was consumed: match the launch again.
    %again = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    transform.debug.emit_remark_at %again, "still here" : !transform.any_op
    transform.yield
  }
}

// -----

// A thread forall with a non-zero lower bound or a non-unit step is refused
// before the launch is resized.

func.func @unnormalized(%x: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    // expected-note@below {{scf.forall}}
    scf.forall (%i) = (0) to (64) step (2) {
      memref.store %zero, %x[%i] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{thread-mapped scf.forall must have zero lower bounds and unit steps}}
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A tile size of 0 tiles no loop, but tile_using_forall keeps both mapping
// attributes: the forall has one loop and two attributes, and the
// interpreter does not verify the payload between steps. Refused, not read
// past the loop's bounds (it crashed).

func.func @zero_thread_tile(%x: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    // expected-note@below {{scf.forall}}
    linalg.fill ins(%zero : f32) outs(%x : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    %t, %forall = transform.structured.tile_using_forall %fill tile_sizes [0, 4]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %launch = transform.structured.match ops{["gpu.launch"]} in %arg0
        : (!transform.any_op) -> !transform.any_op
    // expected-error@below {{an scf.forall has 2 mapping attributes for its 1 loops (a tile size of 0 tiles no loop: give it no mapping)}}
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
