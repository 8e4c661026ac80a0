// RUN: tessel-opt %s --tessel-check-kernel-payload --split-input-file \
// RUN:   --verify-diagnostics | FileCheck %s

// The SIMT schedule's output is accepted and left unchanged.
// RUN: tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-check-kernel-payload | FileCheck %s --check-prefix=SIMT
// SIMT-LABEL: func.func @matmul_relu
// SIMT:         gpu.launch
// SIMT:           scf.for
// SIMT:             vector.contract
// SIMT:           vector.transfer_write
// SIMT:         return

// Host code only launches; all computation (scf, vector, memref accesses)
// sits inside the gpu.launch, and kernels may use memref.alloca. External
// declarations are not checked.

// CHECK-LABEL: func.func private @external(tensor<4xf32>)
// CHECK-LABEL: func.func @copy
// CHECK-SAME:    (%[[A:.+]]: memref<4x32xf32>, %[[B:.+]]: memref<4x32xf32>) -> memref<4x32xf32>
// CHECK:         gpu.launch
// CHECK:           memref.alloca() : memref<4xf32>
// CHECK:           scf.for
// CHECK:             memref.load %[[A]]
// CHECK:           vector.transfer_read %[[A]]
// CHECK:           vector.transfer_write %{{.+}}, %[[B]]
// CHECK:         return %[[B]]
func.func private @external(tensor<4xf32>)

func.func @copy(%a: memref<4x32xf32>, %b: memref<4x32xf32>) -> memref<4x32xf32> {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %c1_0 = arith.constant 1 : index
    %c4_0 = arith.constant 4 : index
    %pad = arith.constant 0.0 : f32
    %tmp = memref.alloca() : memref<4xf32>
    scf.for %i = %c0 to %c4_0 step %c1_0 {
      %x = memref.load %a[%bx, %i] : memref<4x32xf32>
      memref.store %x, %tmp[%i] : memref<4xf32>
    }
    %col = arith.muli %tx, %c4_0 : index
    %v = vector.transfer_read %a[%bx, %col], %pad {in_bounds = [true]}
        : memref<4x32xf32>, vector<4xf32>
    vector.transfer_write %v, %b[%bx, %col] {in_bounds = [true]}
        : vector<4xf32>, memref<4x32xf32>
    gpu.terminator
  }
  return %b : memref<4x32xf32>
}

// -----

// Already outlined kernels (gpu.launch_func) are accepted too.

// CHECK-LABEL: func.func @outlined
// CHECK:         gpu.launch_func @kernels::@scale
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %x = memref.load %a[%tx] : memref<32xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%tx] : memref<32xf32>
      gpu.return
    }
  }
  func.func @outlined(%a: memref<32xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%a : memref<32xf32>)
    return
  }
}
