// RUN: tessel-opt %s --tessel-set-vector-alignment --split-input-file | FileCheck %s
// RUN: tessel-opt %s --tessel-set-vector-alignment=version-edge-tiles=false --split-input-file \
// RUN:   | FileCheck %s --check-prefix=OFF
// RUN: not tessel-opt %s --split-input-file --tessel-set-vector-alignment=version-edge-tiles=maybe 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: for the --version-edge-tiles option: 'maybe' is invalid value for boolean argument

// A 4097-column f32 matrix read from its aligned copy (rows of 4128):
// the last of 65 column tiles of 64 starts at 4033, so no block's column
// offset is provably a multiple of 4. The blocks before the last get a
// version with offset b * 64 and 16-byte loads; the last block keeps the
// shifted offset and element-aligned loads. The row offset (shifted too)
// multiplies an aligned row stride, so it needs no version.

// CHECK-LABEL: gpu.func @columns
// CHECK:         %[[BX:.+]] = gpu.block_id x
// CHECK:         %[[BY:.+]] = gpu.block_id y
// CHECK:         %[[ROW:.+]] = affine.min {{.+}}()[%[[BY]]]
// CHECK:         %[[IN:.+]] = arith.cmpi ule, %[[BX]], %c63
// CHECK:         scf.if %[[IN]] {
// CHECK:           %[[COL:.+]] = affine.apply #{{.+}}(%[[BX]])
// CHECK:           %[[C:.+]] = affine.apply #{{.+}}()[%[[COL]], %{{.+}}]
// CHECK:           vector.load %{{.+}}[%{{.+}}, %[[C]]] {alignment = 16 : i64} : memref<4097x4128xf32>, vector<4xf32>
// CHECK:           vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<4097x4128xf32>, vector<4xf32>
// CHECK:           gpu.barrier
// CHECK:         } else {
// CHECK:           %[[EDGE:.+]] = affine.min {{.+}}()[%[[BX]]]
// CHECK:           %[[E:.+]] = affine.apply #{{.+}}()[%[[EDGE]], %{{.+}}]
// CHECK:           vector.load %{{.+}}[%{{.+}}, %[[E]]] : memref<4097x4128xf32>, vector<4xf32>
// CHECK:           vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<4097x4128xf32>, vector<4xf32>
// CHECK:           gpu.barrier
// CHECK:         }
// CHECK-NEXT:    gpu.return

// Without versioning the column loads stay element-aligned.
// OFF-LABEL: gpu.func @columns
// OFF-NOT:     scf.if
// OFF:         vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<4097x4128xf32>, vector<4xf32>
// OFF:         vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<4097x4128xf32>, vector<4xf32>
gpu.module @kernels {
  gpu.func @columns(%B: memref<4097x4128xf32>, %A: memref<4097x4128xf32>) kernel {
    %k = arith.constant 8 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %row = affine.min affine_map<()[s0] -> (4033, s0 * 64)>()[%by]
    %col = affine.min affine_map<()[s0] -> (4033, s0 * 64)>()[%bx]
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %c = affine.apply affine_map<()[s0, s1] -> (s0 + s1 * 4)>()[%col, %tx]
    %b = vector.load %B[%k, %c] : memref<4097x4128xf32>, vector<4xf32>
    %r = affine.apply affine_map<()[s0, s1] -> (s0 + s1 * 4)>()[%row, %ty]
    %a = vector.load %A[%r, %k] : memref<4097x4128xf32>, vector<4xf32>
    gpu.barrier
    gpu.return
  }
}

// -----

// Nothing to gain: row 1 of a 4097-column matrix read in place is not
// aligned whatever the column offset, so the kernel is left as it is.

// CHECK-LABEL: gpu.func @unaligned_rows
// CHECK-NOT:     scf.if
// CHECK:         vector.load %{{.+}} : memref<4097x4097xf32>, vector<4xf32>
// CHECK-NEXT:    gpu.return
gpu.module @kernels {
  gpu.func @unaligned_rows(%B: memref<4097x4097xf32>) kernel {
    %k = arith.constant 1 : index
    %bx = gpu.block_id x
    %col = affine.min affine_map<()[s0] -> (4033, s0 * 64)>()[%bx]
    %tx = gpu.thread_id x
    %c = affine.apply affine_map<()[s0, s1] -> (s0 + s1 * 4)>()[%col, %tx]
    %b = vector.load %B[%k, %c] : memref<4097x4097xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// A shift that keeps the alignment (4036 = 4 * 1009) needs no version, and
// a minimum over a thread id is never versioned (its threads would take
// different versions around a barrier).

// CHECK-LABEL: gpu.func @aligned_shift
// CHECK-NOT:     scf.if
// CHECK:         vector.load %{{.+}} {alignment = 16 : i64} : memref<4100x4128xf32>, vector<4xf32>
// CHECK:         vector.load %{{.+}} : memref<4100x4128xf32>, vector<4xf32>
// CHECK-NEXT:    gpu.barrier
gpu.module @kernels {
  gpu.func @aligned_shift(%B: memref<4100x4128xf32>) kernel {
    %k = arith.constant 8 : index
    %bx = gpu.block_id x
    %col = affine.min affine_map<()[s0] -> (4036, s0 * 64)>()[%bx]
    %tx = gpu.thread_id x
    %c = affine.apply affine_map<()[s0, s1] -> (s0 + s1 * 4)>()[%col, %tx]
    %b = vector.load %B[%k, %c] : memref<4100x4128xf32>, vector<4xf32>
    %t = affine.min affine_map<()[s0] -> (61, s0 * 4)>()[%tx]
    %d = vector.load %B[%k, %t] : memref<4100x4128xf32>, vector<4xf32>
    gpu.barrier
    gpu.return
  }
}
