// RUN: tessel-opt %s --transform-interpreter --split-input-file \
// RUN:   --verify-diagnostics | FileCheck %s

// A 64x64 block tile (K = 64) computed by 2x2 warps of 32x32: 128 threads,
// two shared buffers per operand with rows padded by 8 elements, one x4
// ldmatrix per A fragment and per pair of B fragments, 2x4 mma.sync per
// 16-deep step, and the ReLU + truncf epilogue applied to each thread's
// accumulator pairs before 4-byte stores.

// CHECK-LABEL: func.func @block_matmul_relu
// CHECK-SAME:    (%[[A:.+]]: memref<256x64xf16>, %[[B:.+]]: memref<64x128xf16>, %[[C:.+]]: memref<256x128xf16>)
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : index
// CHECK:         gpu.launch
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %[[C128]], {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// CHECK-NOT:       memref.alloc() {{.*}} : memref<64x64xf32>
// CHECK-NOT:       linalg.
// CHECK:           %[[TID:.+]] = gpu.thread_id x
// CHECK:           %[[SA:.+]] = memref.alloc() : memref<2x64x40xf16, #gpu.address_space<workgroup>>
// CHECK:           %[[SB:.+]] = memref.alloc() : memref<2x32x72xf16, #gpu.address_space<workgroup>>
// CHECK:           %[[INIT:.+]] = vector.broadcast %{{.+}} : f32 to vector<2x2xf32>
// CHECK:           %[[LOOP:.+]]:8 = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
// CHECK-SAME:        -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// CHECK:             gpu.barrier
// CHECK-COUNT-2:     vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : memref<64x64xf16, strided<[64, 1], offset: ?>>, vector<8xf16>
// CHECK:             vector.transfer_write %{{.+}}, %[[SA]][%{{.+}}, %{{.+}}, %{{.+}}] {in_bounds = [true]} : vector<8xf16>, memref<2x64x40xf16, #gpu.address_space<workgroup>>
// CHECK:             vector.transfer_write %{{.+}}, %[[SB]]
// CHECK:             gpu.barrier
// CHECK:             nvgpu.ldmatrix %[[SA]][{{.+}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:             %[[BP:.+]] = nvgpu.ldmatrix %[[SB]][{{.+}}] {numTiles = 4 : i32, transpose = true} : memref<2x32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:             vector.shuffle %[[BP]], %[[BP]] [0, 1] : vector<4x2xf16>, vector<4x2xf16>
// CHECK:             vector.shuffle %[[BP]], %[[BP]] [2, 3] : vector<4x2xf16>, vector<4x2xf16>
// CHECK-COUNT-16:    nvgpu.mma.sync({{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT:         nvgpu.mma.sync
// CHECK:             scf.yield
// CHECK:           } {tessel.mma_main_loop}
// CHECK:           %[[PAIR:.+]] = vector.extract %[[LOOP]]#0[0] : vector<2xf32> from vector<2x2xf32>
// CHECK:           %[[ZERO:.+]] = vector.broadcast %{{.+}} : f32 to vector<2xf32>
// CHECK:           %[[RELU:.+]] = arith.maximumf %[[PAIR]], %[[ZERO]] : vector<2xf32>
// CHECK:           %[[OUT:.+]] = arith.truncf %[[RELU]] : vector<2xf32> to vector<2xf16>
// CHECK:           vector.store %[[OUT]], %{{.+}}[%{{.+}}, %{{.+}}] : memref<64x64xf16, strided<[128, 1], offset: ?>>, vector<2xf16>
// CHECK-COUNT-15:  vector.store
// CHECK-NOT:       vector.store
// CHECK:           gpu.terminator
#id = affine_map<(i, j) -> (i, j)>
func.func @block_matmul_relu(%A: memref<256x64xf16>, %B: memref<64x128xf16>,
                             %C: memref<256x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = gpu.block_id x
    %y = gpu.block_id y
    %c64 = arith.constant 64 : index
    %m0 = arith.muli %y, %c64 : index
    %n0 = arith.muli %x, %c64 : index
    %a = memref.subview %A[%m0, 0] [64, 64] [1, 1]
        : memref<256x64xf16> to memref<64x64xf16, strided<[64, 1], offset: ?>>
    %b = memref.subview %B[0, %n0] [64, 64] [1, 1]
        : memref<64x128xf16> to memref<64x64xf16, strided<[128, 1], offset: ?>>
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    linalg.matmul ins(%a, %b : memref<64x64xf16, strided<[64, 1], offset: ?>>,
                               memref<64x64xf16, strided<[128, 1], offset: ?>>)
                  outs(%acc : memref<64x64xf32>)
    %c = memref.subview %C[%m0, %n0] [64, 64] [1, 1]
        : memref<256x128xf16> to memref<64x64xf16, strided<[128, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>) outs(%c : memref<64x64xf16, strided<[128, 1], offset: ?>>) {
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
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// bf16 inputs accumulating straight into an f32 output: no epilogue, the
// accumulator pairs are stored as they are.

// CHECK-LABEL: func.func @block_matmul_bf16_no_epilogue
// CHECK:         nvgpu.ldmatrix {{.+}} -> vector<4x2xbf16>
// CHECK:         nvgpu.mma.sync({{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:       } {tessel.mma_main_loop}
// CHECK-NOT:     arith.maximumf
// CHECK:         %[[PAIR:.+]] = vector.extract %{{.+}}[0] : vector<2xf32> from vector<2x2xf32>
// CHECK-NOT:     arith.maximumf
// CHECK:         vector.store %[[PAIR]], %{{.+}} : memref<32x32xf32, strided<[32, 1]>>, vector<2xf32>
func.func @block_matmul_bf16_no_epilogue(%A: memref<32x32xbf16>, %B: memref<32x32xbf16>,
                                         %C: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = memref.subview %C[0, 0] [32, 32] [1, 1]
        : memref<32x32xf32> to memref<32x32xf32, strided<[32, 1]>>
    linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32, strided<[32, 1]>>)
    linalg.matmul ins(%A, %B : memref<32x32xbf16>, memref<32x32xbf16>)
                  outs(%c : memref<32x32xf32, strided<[32, 1]>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bk = transform.param.constant 16 : i64 -> !transform.param<i64>
    %wm = transform.param.constant 32 : i64 -> !transform.param<i64>
    %wn = transform.param.constant 16 : i64 -> !transform.param<i64>
    %st = transform.param.constant 1 : i64 -> !transform.param<i64>
    %so = transform.param.constant 0 : i64 -> !transform.param<i64>
    %pad = transform.param.constant 0 : i64 -> !transform.param<i64>
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// stage_output = 1: the epilogue's pairs go to a 64x72 tile in workgroup
// memory (rows padded by one 16-byte chunk), then every thread copies
// 64 * 64 / 8 / 128 = 4 rows of 16 bytes out.

// CHECK-LABEL: func.func @staged_output
// CHECK:       } {tessel.mma_main_loop}
// CHECK:         %[[TILE:.+]] = memref.alloc() : memref<64x72xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-16: vector.store %{{.+}}, %[[TILE]][%{{.+}}, %{{.+}}] : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK:         gpu.barrier
// CHECK-COUNT-4: %[[V:.+]] = vector.load %[[TILE]][%{{.+}}, %{{.+}}] : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT:      vector.store %[[V]], %[[OUT:.+]][%{{.+}}, %{{.+}}] : memref<64x64xf16>, vector<8xf16>
// CHECK-NOT:     vector.store
#id = affine_map<(i, j) -> (i, j)>
func.func @staged_output(%A: memref<64x64xf16>, %B: memref<64x64xf16>,
                         %C: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>)
                  outs(%acc : memref<64x64xf32>)
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
    %pad = transform.param.constant 8 : i64 -> !transform.param<i64>
    %so = transform.param.constant 1 : i64 -> !transform.param<i64>
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %st padding %pad stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}
