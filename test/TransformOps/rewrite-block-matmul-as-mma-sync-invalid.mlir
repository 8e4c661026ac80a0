// RUN: tessel-opt %s --transform-interpreter --split-input-file \
// RUN:   --verify-diagnostics

// Preconditions of transform.tessel.rewrite_block_matmul_as_mma_sync are
// reported before the payload is changed.


// f32 inputs have no m16n8k16 mma.sync.
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-note @below {{target op}}
    linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%acc : memref<64x64xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%C : memref<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %zero : f32
      %t = arith.addf %r, %zero : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 32 : i64 -> !transform.param<i64>
    %st = transform.param.constant 2 : i64 -> !transform.param<i64>
    %so = transform.param.constant 0 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 8 : i64 -> !transform.param<i64>
    // expected-error @below {{mma.sync needs f16 or bf16 inputs (both the same) and an f32 accumulator}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// tile_k must divide K.
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-note @below {{target op}}
    linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%acc : memref<64x64xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%C : memref<64x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %r = arith.maximumf %in, %zero : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 40 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 32 : i64 -> !transform.param<i64>
    %st = transform.param.constant 2 : i64 -> !transform.param<i64>
    %so = transform.param.constant 0 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 8 : i64 -> !transform.param<i64>
    // expected-error @below {{tile_k = 40 must be a multiple of 16}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// The warp tile must divide the block tile.
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%A: memref<128x64xf16>, %B: memref<64x64xf16>, %C: memref<128x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // A 64-row block tile of 128 rows: the warp tile must divide it.
    %a = memref.subview %A[0, 0] [64, 64] [1, 1]
        : memref<128x64xf16> to memref<64x64xf16, strided<[64, 1]>>
    %c = memref.subview %C[0, 0] [64, 64] [1, 1]
        : memref<128x64xf16> to memref<64x64xf16, strided<[64, 1]>>
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-note @below {{target op}}
    linalg.matmul ins(%a, %B : memref<64x64xf16, strided<[64, 1]>>, memref<64x64xf16>) outs(%acc : memref<64x64xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%c : memref<64x64xf16, strided<[64, 1]>>) {
    ^bb0(%in: f32, %out: f16):
      %r = arith.maximumf %in, %zero : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 48 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 32 : i64 -> !transform.param<i64>
    %st = transform.param.constant 2 : i64 -> !transform.param<i64>
    %so = transform.param.constant 0 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 8 : i64 -> !transform.param<i64>
    // expected-error @below {{warp tile M = 48 must be a multiple of 16 that divides the block tile M = 64}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// 16 warps cannot split a 64x32 tile into 16-byte copies.
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-note @below {{target op}}
    linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%acc : memref<64x64xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%C : memref<64x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %r = arith.maximumf %in, %zero : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 16 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 16 : i64 -> !transform.param<i64>
    %st = transform.param.constant 2 : i64 -> !transform.param<i64>
    %so = transform.param.constant 0 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 8 : i64 -> !transform.param<i64>
    // expected-error @below {{the 64x32 A tile and 32x64 B tile do not split into 16-byte copies evenly among 512 threads}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// Rows padded to a non-multiple of 8 elements break 16-byte alignment.
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-note @below {{target op}}
    linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%acc : memref<64x64xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%C : memref<64x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %r = arith.maximumf %in, %zero : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 32 : i64 -> !transform.param<i64>
    %st = transform.param.constant 2 : i64 -> !transform.param<i64>
    %so = transform.param.constant 0 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 4 : i64 -> !transform.param<i64>
    // expected-error @below {{padding = 4 must be a non-negative multiple of 8 (16-byte aligned rows)}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// The accumulator must not be read by anything else.
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-note @below {{target op}}
    linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%acc : memref<64x64xf32>)
    // expected-note @below {{other use}}
    memref.copy %acc, %acc : memref<64x64xf32> to memref<64x64xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%C : memref<64x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %r = arith.maximumf %in, %zero : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 32 : i64 -> !transform.param<i64>
    %st = transform.param.constant 2 : i64 -> !transform.param<i64>
    %so = transform.param.constant 0 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 8 : i64 -> !transform.param<i64>
    // expected-error @below {{the accumulator may only be used by a linalg.fill, the contraction and one elementwise linalg.generic}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// stage_output is a switch: 0 or 1.
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%acc : memref<64x64xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%C : memref<64x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %r = arith.maximumf %in, %zero : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 32 : i64 -> !transform.param<i64>
    %st = transform.param.constant 2 : i64 -> !transform.param<i64>
    %so = transform.param.constant 2 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 8 : i64 -> !transform.param<i64>
    // expected-error @below {{expected stage_output to be 0 or 1}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// Outside a gpu.launch there are no threads to lay out.
func.func @f(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<64x64xf32>)
  // expected-note @below {{target op}}
  linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%C : memref<64x64xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 32 : i64 -> !transform.param<i64>
    %z = transform.param.constant 0 : i64 -> !transform.param<i64>
    // expected-error @below {{expected the contraction inside a gpu.launch}}
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %p warp_tile %p, %p stages %p padding %p stage_output %z
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}
