// What LLVM's NVPTX backend cannot compile and no earlier check refuses
// (NVVM operations the chip lacks, written directly) is an error at the
// GPU module's launch with exit status 1 and no output file, not an LLVM
// abort asking for a bug report to LLVM.
//
// RUN: rm -f %t.out
// RUN: not tessel-opt %s --split-input-file --tessel-lower-to-ptx=chip=sm_75 -o %t.out 2>&1 \
// RUN:   | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: serialize-to-ptx-invalid.mlir:[[@LINE+12]]:3: error: LLVM's NVPTX backend cannot compile GPU module 'cp_async_kernel': Cannot select: intrinsic %llvm.nvvm.cp.async.commit.group
// CHECK-NOT: PLEASE submit a bug report
// CHECK-NOT: LLVM ERROR
// The error ends the process (LLVM's state is not to be trusted after
// it), so the second case runs alone: setmaxnreg needs sm_90a.
// RUN: sed -n '/^func.func @setmaxnreg/,$p' %s > %t.setmaxnreg.mlir
// RUN: not tessel-opt %t.setmaxnreg.mlir --tessel-lower-to-ptx=chip=sm_80 -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SETMAXNREG
// SETMAXNREG: error: LLVM's NVPTX backend cannot compile GPU module 'setmaxnreg_kernel': Cannot select: intrinsic %llvm.nvvm.setmaxnreg.inc.sync.aligned.u32

func.func @cp_async(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    nvvm.cp.async.commit.group
    gpu.terminator
  }
  return
}

// -----

func.func @setmaxnreg(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    nvvm.setmaxregister increase 240
    gpu.terminator
  }
  return
}
