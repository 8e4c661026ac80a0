// RUN: tessel-opt %s --tessel-set-vector-alignment --split-input-file | FileCheck %s
// RUN: tessel-opt %s --tessel-set-vector-alignment=pointer-alignment=8 --split-input-file \
// RUN:   | FileCheck %s --check-prefix=ALIGN8
// Run alone, the pass checks its option as tessel-lower-to-ptx does.
// RUN: not tessel-opt %s --split-input-file --tessel-set-vector-alignment=pointer-alignment=0 2>&1 | FileCheck %s --check-prefix=BAD0
// RUN: not tessel-opt %s --split-input-file --tessel-set-vector-alignment=pointer-alignment=-16 2>&1 | FileCheck %s --check-prefix=BADNEG
// RUN: not tessel-opt %s --split-input-file --tessel-set-vector-alignment=pointer-alignment=3 2>&1 | FileCheck %s --check-prefix=BAD3
// BAD0: error: tessel-set-vector-alignment: pointer-alignment=0 must be a power of two between 1 and 256
// BADNEG: error: tessel-set-vector-alignment: pointer-alignment=-16 must be a power of two between 1 and 256
// BAD3: error: tessel-set-vector-alignment: pointer-alignment=3 must be a power of two between 1 and 256

// Kernel buffer arguments are assumed aligned to pointer-alignment; the
// kernel's signature says so with llvm.align (scalars get nothing).

// CHECK-LABEL: gpu.func @signature
// CHECK-SAME:    (%{{.+}}: memref<64x64xf32> {llvm.align = 16 : i64}, %{{.+}}: memref<16xf16> {llvm.align = 16 : i64}, %{{[^:]+}}: index)
// CHECK-SAME:    kernel
// ALIGN8-LABEL: gpu.func @signature
// ALIGN8-SAME:    (%{{.+}}: memref<64x64xf32> {llvm.align = 8 : i64}, %{{.+}}: memref<16xf16> {llvm.align = 8 : i64}, %{{[^:]+}}: index)
gpu.module @kernels {
  gpu.func @signature(%a: memref<64x64xf32>, %b: memref<16xf16>, %n: index) kernel {
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @loads
// ALIGN8-LABEL: gpu.func @loads
gpu.module @kernels {
  gpu.func @loads(%A: memref<64x64xf32>, %H: memref<64x64xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %tid = gpu.thread_id x
    // CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step
    scf.for %i = %c0 to %c64 step %c4 {
      // %i is a multiple of 4 elements (16 bytes); the row index is unknown
      // but multiplies a 256-byte row stride.
      // CHECK: vector.load %{{.+}}[%{{.+}}, %[[I]]] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
      // ALIGN8: vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 8 : i64} : memref<64x64xf32>, vector<4xf32>
      %aligned = vector.load %A[%tid, %i] : memref<64x64xf32>, vector<4xf32>

      // A constant column 2 is only 8 bytes into the row.
      // CHECK: vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 8 : i64} : memref<64x64xf32>, vector<4xf32>
      // ALIGN8: vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 8 : i64} : memref<64x64xf32>, vector<4xf32>
      %half = vector.load %A[%c0, %c2] : memref<64x64xf32>, vector<4xf32>

      // Column 1: no better than the element's alignment, so nothing is set.
      // CHECK: vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<64x64xf32>, vector<4xf32>
      // ALIGN8: vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<64x64xf32>, vector<4xf32>
      %odd = vector.load %A[%c0, %c1] : memref<64x64xf32>, vector<4xf32>

      // Nothing is known about a thread id used as the column.
      // CHECK: vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<64x64xf32>, vector<4xf32>
      // ALIGN8: vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<64x64xf32>, vector<4xf32>
      %unknown = vector.load %A[%c0, %tid] : memref<64x64xf32>, vector<4xf32>

      // Capped at the vector's size (2 x f32 = 8 bytes).
      // CHECK: vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 8 : i64} : memref<64x64xf32>, vector<2xf32>
      %small = vector.load %A[%c0, %i] : memref<64x64xf32>, vector<2xf32>

      // f16: 4 elements are 8 bytes.
      // CHECK: vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 8 : i64} : memref<64x64xf16>, vector<8xf16>
      %f16 = vector.load %H[%c0, %i] : memref<64x64xf16>, vector<8xf16>

      // CHECK: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %[[I]]] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
      // ALIGN8: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 8 : i64} : memref<64x64xf32>, vector<4xf32>
      vector.store %aligned, %A[%tid, %i] : memref<64x64xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----

// Index arithmetic: multiplications and affine maps carry divisibility;
// mod and an odd offset lose it.

// CHECK-LABEL: gpu.func @index_arithmetic
gpu.module @kernels {
  gpu.func @index_arithmetic(%A: memref<1024xf32>) kernel {
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    %tid = gpu.thread_id x
    // CHECK: vector.load %{{.+}}[%{{.+}}] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
    %mul = arith.muli %tid, %c4 : index
    %0 = vector.load %A[%mul] : memref<1024xf32>, vector<4xf32>
    // CHECK: vector.load %{{.+}}[%{{.+}}] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
    %aff = affine.apply affine_map<(d0) -> (d0 * 8 + 4)>(%tid)
    %1 = vector.load %A[%aff] : memref<1024xf32>, vector<4xf32>
    // CHECK: vector.load %{{.+}}[%{{.+}}] : memref<1024xf32>, vector<4xf32>
    %mod = affine.apply affine_map<(d0) -> ((d0 * 4) mod 6)>(%tid)
    %2 = vector.load %A[%mod] : memref<1024xf32>, vector<4xf32>
    // CHECK: vector.load %{{.+}}[%{{.+}}] : memref<1024xf32>, vector<4xf32>
    %add = arith.addi %mul, %c3 : index
    %3 = vector.load %A[%add] : memref<1024xf32>, vector<4xf32>
    // CHECK-NOT: alignment
    // CHECK: gpu.return
    gpu.return
  }
}

// -----

// Masked accesses are handled like plain ones.

// CHECK-LABEL: gpu.func @masked
// CHECK:         vector.maskedload %{{.+}}[%{{.+}}], %{{.+}}, %{{.+}} {alignment = 16 : i64} : memref<64xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK:         vector.maskedstore %{{.+}}[%{{.+}}], %{{.+}}, %{{.+}} {alignment = 16 : i64} : memref<64xf32>, vector<4xi1>, vector<4xf32>
gpu.module @kernels {
  gpu.func @masked(%A: memref<64xf32>, %m: vector<4xi1>, %p: vector<4xf32>) kernel {
    %c8 = arith.constant 8 : index
    %v = vector.maskedload %A[%c8], %m, %p
        : memref<64xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
    vector.maskedstore %A[%c8], %m, %v : memref<64xf32>, vector<4xi1>, vector<4xf32>
    gpu.return
  }
}

// -----

// Only buffers whose base alignment is known: kernel arguments and
// allocations with an explicit alignment. Views (non-identity layouts) and
// allocations without one get nothing.

// CHECK-LABEL: gpu.func @bases
// CHECK:         vector.load %{{.+}}[%{{.+}}] {alignment = 16 : i64} : memref<16xf32, 5>, vector<4xf32>
// CHECK:         vector.load %{{.+}}[%{{.+}}] : memref<16xf32, 5>, vector<4xf32>
// CHECK:         vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<4x4xf32, strided<[64, 1], offset: ?>>, vector<4xf32>
gpu.module @kernels {
  gpu.func @bases(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %aligned = memref.alloca() {alignment = 16 : i64} : memref<16xf32, 5>
    %0 = vector.load %aligned[%c0] : memref<16xf32, 5>, vector<4xf32>
    %plain = memref.alloca() : memref<16xf32, 5>
    %1 = vector.load %plain[%c0] : memref<16xf32, 5>, vector<4xf32>
    %view = memref.subview %A[%tid, 0] [4, 4] [1, 1]
        : memref<64x64xf32> to memref<4x4xf32, strided<[64, 1], offset: ?>>
    %2 = vector.load %view[%c0, %c0] : memref<4x4xf32, strided<[64, 1], offset: ?>>, vector<4xf32>
    gpu.return
  }
}

// -----

// Host functions are not kernels: their arguments get neither llvm.align
// nor aligned accesses.

// CHECK-LABEL: func.func @host
// CHECK-SAME:    (%{{.+}}: memref<64xf32>)
// CHECK-NOT:     llvm.align
// CHECK-NOT:     alignment
// CHECK:         return
func.func @host(%A: memref<64xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %v = vector.load %A[%c0] : memref<64xf32>, vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// Workgroup attributions carry no alignment guarantee from the runtime: no
// alignment is claimed for their accesses (only the kernel's buffer
// argument gets one).
// CHECK-LABEL: gpu.module @workgroup
// CHECK:         gpu.func @k(%{{.*}}: memref<64xf32> {llvm.align = 16 : i64})
// CHECK:           vector.load %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT:       alignment
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
gpu.module @workgroup {
  gpu.func @k(%out: memref<64xf32>)
      workgroup(%wg: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tx = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tx, %c4 : index
    %v = vector.load %wg[%i] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %v, %out[%i] : memref<64xf32>, vector<4xf32>
    gpu.return
  }
}
