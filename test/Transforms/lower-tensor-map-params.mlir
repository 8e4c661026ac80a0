// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(tessel-lower-tensor-map-params))' \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(tessel-lower-tensor-map-params,convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},tessel-lower-tensor-map-params))' \
// RUN:   | FileCheck %s --check-prefix=NVVM
// Without bare pointers, memrefs expand into several llvm.func arguments and
// the listed numbers no longer name the tensor maps: an error, not a wrong
// kernel.
// RUN: not tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(tessel-lower-tensor-map-params,convert-gpu-to-nvvm,tessel-lower-tensor-map-params))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=EXPANDED
// EXPANDED: error: kernel 'two_maps' has tensor map arguments but its arguments changed in number when it became an llvm.func; convert it with the bare-pointer calling convention

// After convert-nvgpu-to-nvvm, a kernel's tensor map arguments are only
// used through unrealized casts to !llvm.ptr. The first run of the pass
// retypes them to !llvm.ptr, drops the casts and lists them in
// tessel.tensor_map_args; after convert-gpu-to-nvvm (bare pointers, so the
// argument numbers are unchanged), the second run makes them 128-byte,
// 64-aligned byval grid-constant parameters and drops the list. Other
// arguments are left as they are.

// CHECK-LABEL: gpu.func @two_maps
// CHECK-SAME:    (%{{.+}}: memref<64xf32>, %[[A:[a-z0-9_]+]]: !llvm.ptr, %{{.+}}: index, %[[B:[a-z0-9_]+]]: !llvm.ptr) kernel
// CHECK-SAME:    attributes {tessel.num_args = 4 : i32, tessel.tensor_map_args = array<i32: 1, 3>}
// CHECK-NOT:     unrealized_conversion_cast
// CHECK:         nvvm.prefetch tensormap, %[[A]] : !llvm.ptr
// CHECK-NEXT:    nvvm.prefetch tensormap, %[[A]] : !llvm.ptr
// CHECK-NEXT:    nvvm.prefetch tensormap, %[[B]] : !llvm.ptr
// CHECK-NEXT:    gpu.return

// NVVM-LABEL: llvm.func @two_maps
// NVVM-SAME:    (%{{[a-z0-9_]+}}: !llvm.ptr,
// NVVM-SAME:    %[[A:[a-z0-9_]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// NVVM-SAME:    %{{[a-z0-9_]+}}: i64,
// NVVM-SAME:    %[[B:[a-z0-9_]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// NVVM-SAME:    attributes {gpu.kernel, nvvm.kernel} {
// NVVM-NOT:     tessel.tensor_map_args
// NVVM-NOT:     tessel.num_args
// NVVM:         nvvm.prefetch tensormap, %[[A]] : !llvm.ptr
// NVVM:         nvvm.prefetch tensormap, %[[B]] : !llvm.ptr
gpu.module @kernels {
  gpu.func @two_maps(%out: memref<64xf32>,
      %a: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>,
      %n: index,
      %b: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>) kernel {
    %pa = builtin.unrealized_conversion_cast %a : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> to !llvm.ptr
    nvvm.prefetch tensormap, %pa : !llvm.ptr
    %pa2 = builtin.unrealized_conversion_cast %a : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> to !llvm.ptr
    nvvm.prefetch tensormap, %pa2 : !llvm.ptr
    %pb = builtin.unrealized_conversion_cast %b : !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none> to !llvm.ptr
    nvvm.prefetch tensormap, %pb : !llvm.ptr
    gpu.return
  }
}

// -----

// A kernel without tensor maps gets no list and no parameter attributes.

// CHECK-LABEL: gpu.func @no_maps
// CHECK-SAME:    (%{{.+}}: memref<64xf32>) kernel {
// NVVM-LABEL: llvm.func @no_maps
// NVVM-SAME:    (%{{[a-z0-9_]+}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
gpu.module @kernels {
  gpu.func @no_maps(%out: memref<64xf32>) kernel {
    gpu.return
  }
}
