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

// -----

// A block the wgmma rewrite sized for two per SM (tessel.blocks_per_sm on
// an op of its body) is compiled for two, so that ptxas keeps its
// registers within half the register file.

// CHECK-LABEL: gpu.module @two
// CHECK:         gpu.func @two_blocks() kernel attributes {nvvm.minctasm = 2 : i32}
gpu.module @two {
  gpu.func @two_blocks() kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id y
    %producer = arith.cmpi uge, %tid, %c0 : index
    scf.if %producer {
      gpu.barrier
    } {tessel.blocks_per_sm = 2 : i64}
    gpu.return
  }
}

// -----

// Marks that disagree are an error; so is a mark beside setmaxnreg, which
// needs one block per SM.
gpu.module @m {
  gpu.func @disagree() kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id y
    %p = arith.cmpi uge, %tid, %c0 : index
    scf.if %p {
      gpu.barrier
    } {tessel.blocks_per_sm = 2 : i64}
    // expected-error @+1 {{kernel disagree asks for 3 blocks per SM (tessel.blocks_per_sm), and elsewhere for 2}}
    scf.if %p {
      gpu.barrier
    } {tessel.blocks_per_sm = 3 : i64}
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{kernel marked_rebalances moves registers between warpgroups (setmaxnreg), which needs one block per SM, but is marked for 2 (tessel.blocks_per_sm)}}
  gpu.func @marked_rebalances() kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id y
    %p = arith.cmpi uge, %tid, %c0 : index
    scf.if %p {
      nvvm.setmaxregister increase 232
    } {tessel.blocks_per_sm = 2 : i64}
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{kernel sized_for_two is sized for 2 blocks per SM, but asks for 1 (nvvm.minctasm)}}
  gpu.func @sized_for_two() kernel attributes {nvvm.minctasm = 1 : i32} {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id y
    %p = arith.cmpi uge, %tid, %c0 : index
    scf.if %p {
      gpu.barrier
    } {tessel.blocks_per_sm = 2 : i64}
    gpu.return
  }
}

// -----

// A mark must ask for at least one block per SM.
gpu.module @m {
  gpu.func @zero_blocks() kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id y
    %p = arith.cmpi uge, %tid, %c0 : index
    // expected-error @+1 {{kernel zero_blocks asks for 0 blocks per SM (tessel.blocks_per_sm)}}
    scf.if %p {
      gpu.barrier
    } {tessel.blocks_per_sm = 0 : i64}
    gpu.return
  }
}
