// RUN: rm -rf %t && mkdir -p %t

// Default options: sm_90, +ptx80, O3, 64-bit indices, 16-byte buffers.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t/default \
// RUN:   | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/default/matmul_relu_kernel.ptx

// The same options spelled out give the same PTX.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90 features=+ptx80 opt-level=3 index-bitwidth=64 pointer-alignment=16" \
// RUN:   --tessel-export-kernels=dir=%t/explicit > /dev/null
// RUN: diff %t/default/matmul_relu_kernel.ptx %t/explicit/matmul_relu_kernel.ptx

// The kernel in the LLVM dialect, just before serialization.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx --mlir-print-ir-before=gpu-module-to-binary 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=LLVM

// Options reach the target and the kernel.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="pointer-alignment=4" --tessel-export-kernels=dir=%t/align4 > /dev/null
// RUN: FileCheck %s --check-prefix=ALIGN4 --input-file=%t/align4/matmul_relu_kernel.ptx
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="opt-level=0" | FileCheck %s --check-prefix=O0
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="index-bitwidth=32" --mlir-print-ir-before=gpu-module-to-binary 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=INDEX32

// M=256, N=512, K=64 with the default knobs: grid (4, 4), block (16, 16).

// The host function only launches the kernel on its arguments (bare
// pointers), with constant sizes; the kernel is PTX in a gpu.binary.
// HOST-LABEL: func.func @matmul_relu
// HOST-SAME:    (%[[A:.+]]: memref<256x64xf32>, %[[B:.+]]: memref<64x512xf32>, %[[C:.+]]: memref<256x512xf32>) -> memref<256x512xf32>
// HOST-DAG:     %[[C1:.+]] = arith.constant 1 : index
// HOST-DAG:     %[[C4:.+]] = arith.constant 4 : index
// HOST-DAG:     %[[C16:.+]] = arith.constant 16 : index
// HOST-NOT:     gpu.launch {
// HOST:         gpu.launch_func @matmul_relu_kernel::@matmul_relu_kernel blocks in (%[[C4]], %[[C4]], %[[C1]]) threads in (%[[C16]], %[[C16]], %[[C1]])
// HOST-SAME:      args(%[[C]] : memref<256x512xf32>, %[[A]] : memref<256x64xf32>, %[[B]] : memref<64x512xf32>)
// HOST-NEXT:    return %[[C]] : memref<256x512xf32>
// HOST-NOT:     gpu.module
// HOST:         gpu.binary @matmul_relu_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90

// PTX:      .version 8.0
// PTX-NEXT: .target sm_90
// PTX-NEXT: .address_size 64
// PTX:      .visible .entry matmul_relu_kernel(
// PTX-NEXT:   .param .u64 .ptr .align 16 matmul_relu_kernel_param_0,
// PTX-NEXT:   .param .u64 .ptr .align 16 matmul_relu_kernel_param_1,
// PTX-NEXT:   .param .u64 .ptr .align 16 matmul_relu_kernel_param_2
// PTX-NEXT: )
// PTX-NEXT: .maxntid 16, 16, 1
// Loads of A and B are 16-byte vectors; 4x8 FMAs per k step, in f32.
// PTX:      ld.global.v4.b32
// PTX:      fma.rn.f32
// The K loop runs in the kernel, branching back.
// PTX:      @%p{{[0-9]+}} bra
// PTX:      max.NaN.f32 {{.+}}, 0f00000000;
// PTX:      st.global.v4.b32
// PTX-NOT:  ld.global.b32
// PTX-NOT:  st.global.b32
// PTX:      bar.sync 0;
// PTX-NEXT: ret;

// LLVM:      llvm.func @matmul_relu_kernel(%{{.+}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.+}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.+}}: !llvm.ptr {llvm.align = 16 : i64})
// LLVM-SAME:   gpu.known_block_size = array<i32: 16, 16, 1>
// LLVM-SAME:   nvvm.kernel
// LLVM-SAME:   nvvm.maxntid = array<i32: 16, 16, 1>
// LLVM-NOT:    vector.
// LLVM-NOT:    memref.
// LLVM-NOT:    scf.
// LLVM:        llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// LLVM:        llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<8xf32>
// LLVM:        llvm.intr.fmuladd
// LLVM:        llvm.intr.maximum
// LLVM:        llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xf32>, !llvm.ptr

// ALIGN4:      .param .u64 .ptr .align 4 matmul_relu_kernel_param_0,
// ALIGN4-NOT:  .v4.
// ALIGN4:      ld.global.b32
// ALIGN4-NOT:  .v4.
// ALIGN4:      st.global.b32
// ALIGN4-NOT:  .v4.

// O0: #nvvm.target<O = 0, chip = "sm_90", features = "+ptx80">

// INDEX32:     llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// INDEX32-NOT: (!llvm.ptr, i64)

func.func @matmul_relu(%A: tensor<256x64xf32>, %B: tensor<64x512xf32>,
                       %C: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x64xf32>, tensor<64x512xf32>)
                      outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x512xf32>) outs(%C : tensor<256x512xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x512xf32>
  return %relu : tensor<256x512xf32>
}
