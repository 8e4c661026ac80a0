// RUN: tessel-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(gpu.module(tessel-lower-tensor-map-params))' \
// RUN:   | FileCheck %s

// A tensor map argument may only be used through the !llvm.ptr casts that
// convert-nvgpu-to-nvvm leaves; any other use means the nvgpu ops were not
// lowered yet, and is reported where it is.

gpu.module @kernels {
  gpu.func @nvgpu_use(%a: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) kernel {
    // expected-error@below {{tensor map argument #0 of kernel 'nvgpu_use' is used by an op that is not lowered to LLVM; run convert-nvgpu-to-nvvm first}}
    nvgpu.tma.prefetch.descriptor %a : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
    gpu.return
  }
}

// -----

// A cast to something other than !llvm.ptr, after a valid cast.
gpu.module @kernels {
  gpu.func @cast_to_i64(%out: memref<64xf32>, %a: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) kernel {
    %p = builtin.unrealized_conversion_cast %a : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> to !llvm.ptr
    nvvm.prefetch tensormap, %p : !llvm.ptr
    // expected-error@below {{tensor map argument #1 of kernel 'cast_to_i64' is used by an op that is not lowered to LLVM}}
    %i = builtin.unrealized_conversion_cast %a : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> to i64
    gpu.return
  }
}

// -----

// Not a kernel: the pass leaves device functions alone, without an error.

// CHECK-LABEL: gpu.func @helper
// CHECK-SAME:    (%[[A:.+]]: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
// CHECK-NEXT:    nvgpu.tma.prefetch.descriptor %[[A]]
gpu.module @kernels {
  gpu.func @helper(%a: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
    nvgpu.tma.prefetch.descriptor %a : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
    gpu.return
  }
}
