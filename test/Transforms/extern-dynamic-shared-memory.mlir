// RUN: tessel-opt %s --pass-pipeline='builtin.module(gpu.module(tessel-extern-dynamic-shared-memory))' \
// RUN:   | FileCheck %s

// convert-gpu-to-nvvm lowers gpu.dynamic_shared_memory to a zero-length
// internal global in address space 3, which NVPTX would print as a one-byte
// static shared variable, laid out among (and overlapping) the kernel's
// static ones. The pass makes it external, so that it is printed as
// `.extern .shared ... []`; static shared arrays, zero-length globals of
// other address spaces and the functions are left alone.

// CHECK-LABEL: gpu.module @kernels
// CHECK:       llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK:       llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
// CHECK:       llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
// CHECK:       llvm.func @kernel()
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.func @kernel() attributes {nvvm.kernel} {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    %1 = llvm.mlir.addressof @__mbarrier : !llvm.ptr<3>
    llvm.return
  }
}
