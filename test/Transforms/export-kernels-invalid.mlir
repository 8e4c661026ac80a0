// RUN: rm -rf %t
// RUN: tessel-opt %s --tessel-export-kernels=dir=%t/out --split-input-file --verify-diagnostics

// The directory cannot be created under a regular file.
// RUN: mkdir -p %t && touch %t/file
// RUN: not tessel-opt %S/export-kernels.mlir --tessel-export-kernels=dir=%t/file/out 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-DIR
// NO-DIR: error: cannot create directory '{{.*}}file{{/|\\}}out':

// expected-error@below {{no host function launches a kernel: nothing to export}}
module attributes {gpu.container_module} {
  func.func @nothing(%a: memref<4xf32>) {
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @dynamic_grid(%a: memref<4xf32>, %n: memref<1xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.load %n[%c0] : memref<1xi32>
    %grid = arith.index_cast %x : i32 to index
    // expected-error@below {{grid size x is not a positive constant; Tessel launches need static launch sizes}}
    gpu.launch_func @kernels::@k blocks in (%grid, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @zero_block(%a: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error@below {{block size y is not a positive constant; Tessel launches need static launch sizes}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c0, %c1)
        args(%a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @dynamic_smem(%a: memref<4xf32>, %n: memref<1xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %smem = memref.load %n[%c0] : memref<1xi32>
    // expected-error@below {{dynamic shared memory size is not a non-negative constant}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        dynamic_shared_memory_size %smem args(%a : memref<4xf32>)
    return
  }
}

// -----

// An index constant has no fixed size in a plain launcher's ABI.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @index_param(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error@below {{kernel argument #1 is neither an argument of 'index_param', a workspace it allocates, nor a non-index scalar constant; a plain launcher cannot provide it}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %c1 : index)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @host_buffer(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %tmp = memref.alloc() : memref<4xf32>
    // expected-error@below {{kernel argument #0 is neither an argument of 'host_buffer', a workspace it allocates, nor a non-index scalar constant; a plain launcher cannot provide it}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%tmp : memref<4xf32>, %a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // expected-error@below {{launch of @kernels::@k has no gpu.binary: run tessel-lower-to-ptx first}}
  func.func @not_serialized(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{argument #1 has type 'f32': only statically shaped, row-major memrefs are supported}}
  func.func @scalar_arg(%a: memref<4xf32>, %s: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %s : f32)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{argument #0 has type 'memref<4x4xf32, strided<[8, 1]>>': only statically shaped, row-major memrefs are supported}}
  func.func @strided_arg(%a: memref<4x4xf32, strided<[8, 1]>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4x4xf32, strided<[8, 1]>>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @returns_new_buffer(%a: memref<4xf32>) -> memref<4xf32> {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>)
    %b = memref.alloc() : memref<4xf32>
    // expected-error@below {{function 'returns_new_buffer' returns a value that is not one of its arguments; Tessel host functions write their results in place}}
    return %b : memref<4xf32>
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error@below {{expected exactly one object (one target) per gpu.binary, found 2}}
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = "">,
                       #gpu.object<#nvvm.target<chip = "sm_90">, assembly = "">]
  func.func @two_targets(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @cluster(%a: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error@below {{cluster size z is not a positive constant; Tessel launches need static launch sizes}}
    gpu.launch_func @kernels::@k clusters in (%c1, %c1, %c0) blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}

// A hand-edited tessel.workload attribute is checked against the function
// it describes (it was exported as is: argument indices out of range, an
// i128 dimension truncated).

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'missing' is malformed: missing value at tessel.workload.rhs}}
  func.func @missing(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {kind = "contraction", lhs = 0 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'kind' has kind 'conv'; Tessel knows 'contraction'}}
  func.func @kind(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", kind = "conv", m = 2 : i64, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 2 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'accumulator' has accumulator_type 'banana'; expected f16, bf16, f32 or f64}}
  func.func @accumulator(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "banana", kind = "contraction", m = 2 : i64, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 2 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'out_of_range' names argument #7, but there are 3}}
  func.func @out_of_range(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", kind = "contraction", m = 2 : i64, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 7 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'wide' has 'm' = 36893488147419103234, not a 64-bit integer}}
  func.func @wide(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", kind = "contraction", m = 36893488147419103234 : i128, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 2 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'shape' describes B (argument #1) as 3x5, but it is 3x4 (m=2, n=5, k=3, A[m,k] B[k,n])}}
  func.func @shape(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", kind = "contraction", m = 2 : i64, n = 5 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 2 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'aliased' names the output among its inputs}}
  func.func @aliased(%a: memref<2x2xf32>, %b: memref<2x2xf32>, %c: memref<2x2xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", kind = "contraction", m = 2 : i64, n = 2 : i64, k = 2 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 0 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x2xf32>)
    return
  }
}

// -----

// The epilogue: steps the reference knows, reading values defined before
// them, and operands indexed by the output's dimensions.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'unknown_step' is malformed: expected an epilogue step: an op the reference knows with its operands' value numbers ("addf 0 1"), or "constant <number>" at tessel.workload.epilogue[0]}}
  func.func @unknown_step(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", epilogue = ["sin 0"], kind = "contraction", m = 2 : i64, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 2 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'later_value' epilogue step 'addf 0 2' reads value 2 before it is defined}}
  func.func @later_value(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", epilogue = ["addf 0 2"], kind = "contraction", m = 2 : i64, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 2 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'bias_dims' has epilogue operand #0 with dims [k]; expected distinct names among m and n}}
  func.func @bias_dims(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %bias: memref<3xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", epilogue = ["addf 0 1"], epilogue_operands = [{argument = 2 : i64, dims = ["k"]}], kind = "contraction", m = 2 : i64, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 3 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  // expected-error@below {{the tessel.workload attribute of 'bias_shape' describes epilogue operand #0 (argument #2) as 4, but it is 3 (m=2, n=4, k=3, A[m,k] B[k,n])}}
  func.func @bias_shape(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %bias: memref<3xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", epilogue = ["addf 0 1"], epilogue_operands = [{argument = 2 : i64, dims = ["n"]}], kind = "contraction", m = 2 : i64, n = 4 : i64, k = 3 : i64, lhs = 0 : i64, rhs = 1 : i64, out = 3 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
}

// -----

// The runtime zeroes a workspace before the first launch (stream-K's
// flags); any other host memset is refused.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @memset_nonzero(%c: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %ws = gpu.alloc () : memref<4xi32>
    // expected-error@below {{a host memset must be a synchronous gpu.memset of a workspace to zero}}
    gpu.memset %ws, %one : memref<4xi32>, i32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%ws : memref<4xi32>, %c : memref<4xi32>)
    gpu.dealloc %ws : memref<4xi32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @memset_argument(%c: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    // expected-error@below {{a host memset must be a synchronous gpu.memset of a workspace to zero}}
    gpu.memset %c, %zero : memref<4xi32>, i32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<4xi32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @memset_after_use(%c: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %ws = gpu.alloc () : memref<4xi32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%ws : memref<4xi32>, %c : memref<4xi32>)
    // expected-error@below {{a workspace is zeroed before the launches that use it}}
    gpu.memset %ws, %zero : memref<4xi32>, i32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%ws : memref<4xi32>, %c : memref<4xi32>)
    gpu.dealloc %ws : memref<4xi32>
    return
  }
}

// -----

// A tensor map of a strided view (a staged read's phase map) needs the
// view's sizes, strides and offset as constants: the runtime encodes them.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @dynamic_view(%a: memref<64x99xf16>) {
    %c1 = arith.constant 1 : index
    %off = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %c72 = arith.constant 72 : index
    %view = memref.reinterpret_cast %a to offset: [%off], sizes: [8, 99], strides: [792, 1] : memref<64x99xf16> to memref<8x99xf16, strided<[792, 1], offset: ?>>
    %cast = memref.cast %view : memref<8x99xf16, strided<[792, 1], offset: ?>> to memref<*xf16>
    // expected-error@below {{tensor map of a reinterpret_cast with a dynamic size, stride or offset}}
    %map = nvgpu.tma.create.descriptor %cast box[%c8, %c72] : memref<*xf16> -> <tensor = memref<8x72xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = l2promo_128b, oob = zero, interleave = none>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%map : !nvgpu.tensormap.descriptor<tensor = memref<8x72xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = l2promo_128b, oob = zero, interleave = none>)
    return
  }
}
