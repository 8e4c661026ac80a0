// tessel-serialize-to-ptx: GPU modules become gpu.binary ops holding PTX
// (upstream's gpu-module-to-binary, format=isa), and what NVPTX cannot
// select is a located error with exit status 1, not an LLVM abort.
//
// RUN: tessel-opt %s --tessel-serialize-to-ptx | FileCheck %s
// CHECK: gpu.binary @kernels
// CHECK-SAME: .target sm_80
// CHECK-SAME: cp.async.commit_group
// CHECK-NOT: gpu.module
//
// The same module for sm_75, which has no cp.async:
// RUN: sed 's/sm_80/sm_75/' %s > %t.sm75.mlir
// RUN: not tessel-opt %t.sm75.mlir --tessel-serialize-to-ptx -o %t.out 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: test ! -e %t.out
// OLD: sm75.mlir:[[@LINE+4]]:3: error: LLVM's NVPTX backend cannot compile GPU module 'kernels': Cannot select: intrinsic %llvm.nvvm.cp.async.commit.group
// OLD-NOT: LLVM ERROR

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      nvvm.cp.async.commit.group
      llvm.return
    }
  }
}
