// LLVM-dialect input in a kernel whose validity MLIR does not verify, but
// LLVM takes for granted, is refused at the entry of the PTX lowering:
// inline assembly whose constraints do not fit its operands (NVPTX's
// instruction selection crashed), that refers to operands it does not have
// (LLVM ERROR in the asm printer), intrinsics of other targets (LLVM ERROR:
// Cannot select), and types wider than 64 bits nested in LLVM aggregates.
//
// RUN: tessel-opt %s --tessel-check-kernel-payload="chip=sm_90a" --split-input-file --verify-diagnostics
// The whole pipeline: an error, never a crash.
// RUN: sed '/expected-/d' %s > %t.mlir
// RUN: not tessel-opt %t.mlir --split-input-file --tessel-lower-to-ptx=chip=sm_90a -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE
// PIPELINE-COUNT-12: error:
// PIPELINE-NOT: PLEASE submit a bug report
// PIPELINE-NOT: LLVM ERROR

func.func @more_inputs(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    // expected-error@below {{inline assembly constraints "=r,r,r" do not fit its operands and results: number of input constraints does not match number of parameters}}
    %r = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r,r" %c : (i32) -> i32
    gpu.terminator
  }
  return
}

// -----

func.func @output_after_input(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    // expected-error@below {{inline assembly constraints "r,=r" do not fit its operands and results: output constraint occurs after input, clobber or label constraint}}
    %r = llvm.inline_asm has_side_effects "mov.b32 $1, $0;", "r,=r" %c : (i32) -> i32
    gpu.terminator
  }
  return
}

// -----

func.func @two_results_one_output(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    // expected-error@below {{do not fit its operands and results}}
    %r = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r" %c : (i32) -> !llvm.struct<(i32, i32)>
    gpu.terminator
  }
  return
}

// -----

func.func @missing_operand(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    // expected-error@below {{inline assembly refers to a missing operand: '$9' (it has 2 operands)}}
    %r = llvm.inline_asm has_side_effects "{ add.s32 $0, $1, $9; }", "=r,r" %c : (i32) -> i32
    gpu.terminator
  }
  return
}

// -----

func.func @missing_braced_operand(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    // expected-error@below {{inline assembly refers to a missing operand: '$2' (it has 2 operands)}}
    %r = llvm.inline_asm has_side_effects "mov.b32 ${0}, ${2:x};", "=r,r" %c : (i32) -> i32
    gpu.terminator
  }
  return
}

// -----

func.func @bad_dollar(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    // expected-error@below {{inline assembly refers to a missing operand: '$x'}}
    %r = llvm.inline_asm has_side_effects "mov.b32 $0, $x;", "=r,r" %c : (i32) -> i32
    gpu.terminator
  }
  return
}

// -----

func.func @unterminated(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    // expected-error@below {{inline assembly refers to a missing operand: an unterminated '${'}}
    %r = llvm.inline_asm has_side_effects "mov.b32 ${0, $1;", "=r,r" %c : (i32) -> i32
    gpu.terminator
  }
  return
}

// -----

func.func @x86_intrinsic(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{intrinsic 'llvm.x86.rdtsc' belongs to another target than NVPTX}}
    %r = llvm.call_intrinsic "llvm.x86.rdtsc"() : () -> i64
    gpu.terminator
  }
  return
}

// -----

func.func @amdgpu_intrinsic(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{intrinsic 'llvm.amdgcn.workitem.id.x' belongs to another target than NVPTX}}
    %r = llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"() : () -> i32
    gpu.terminator
  }
  return
}

// -----

func.func @f128_in_struct(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{values of type '!llvm.struct<(i32, f128)>': NVPTX has no floating-point type wider than 64 bits}}
    %u = llvm.mlir.undef : !llvm.struct<(i32, f128)>
    gpu.terminator
  }
  return
}

// -----

func.func @i128_in_array(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@below {{values of type '!llvm.array<2 x i128>': NVPTX has no integer type wider than 64 bits}}
    %u = llvm.mlir.undef : !llvm.array<2 x i128>
    gpu.terminator
  }
  return
}

// -----

func.func @f80_in_vector(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(2 : i32) : i32
    // expected-error@below {{type 'f80' in 'llvm.alloca': NVPTX has no floating-point type wider than 64 bits}}
    %p = llvm.alloca %c x vector<4xf80> : (i32) -> !llvm.ptr
    gpu.terminator
  }
  return
}

// -----

// Well-formed inline assembly, target-independent and NVVM intrinsics pass.
func.func @accepted(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c = llvm.mlir.constant(3 : i32) : i32
    %r = llvm.inline_asm has_side_effects "{ mov.b32 ${0}, $1; // $$ ${:uid} }", "=r,r,~{memory}" %c : (i32) -> i32
    %t = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
    %s = llvm.call_intrinsic "llvm.smax.i32"(%r, %t) : (i32, i32) -> i32
    gpu.terminator
  }
  return
}
