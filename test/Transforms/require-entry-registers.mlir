// RUN: tessel-opt %s --tessel-require-entry-registers --split-input-file -verify-diagnostics | FileCheck %s

// A kernel that moves registers between its warpgroups (setmaxnreg) is
// compiled for one block per SM: ptxas honors setmaxnreg only when it knows
// the register count at entry (.maxntid and .minnctapersm). Kernels without
// it, and functions that are not kernels, are left alone.

// CHECK-LABEL: gpu.module @m
// CHECK:         gpu.func @rebalances() kernel attributes {nvvm.minctasm = 1 : i32}
// CHECK:         gpu.func @plain() kernel {
// CHECK:         gpu.func @device_function() {
gpu.module @m {
  gpu.func @rebalances() kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id y
    %producer = arith.cmpi uge, %tid, %c0 : index
    scf.if %producer {
      nvvm.setmaxregister decrease 40
    } else {
      nvvm.setmaxregister increase 232
    }
    gpu.return
  }
  gpu.func @plain() kernel {
    gpu.return
  }
  gpu.func @device_function() {
    nvvm.setmaxregister increase 232
    gpu.return
  }
}

// -----

// A kernel that already asks for more blocks per SM cannot get them.
gpu.module @m {
  // expected-error @+1 {{kernel two_per_sm moves registers between warpgroups (setmaxnreg), which needs one block per SM, but asks for 2 (nvvm.minctasm)}}
  gpu.func @two_per_sm() kernel attributes {nvvm.minctasm = 2 : i32} {
    nvvm.setmaxregister increase 232
    gpu.return
  }
}
