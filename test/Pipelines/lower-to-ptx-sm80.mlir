// RUN: rm -rf %t && mkdir -p %t

// Ampere with PTX ISA 7.0.
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="chip=sm_80 features=+ptx70" --tessel-export-kernels=dir=%t/ptx70 \
// RUN:   | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s --check-prefixes=PTX,PTX70 --input-file=%t/ptx70/matmul_relu_kernel.ptx

// Ampere with the default features (+ptx80).
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="chip=sm_80" --tessel-export-kernels=dir=%t/ptx80 > /dev/null
// RUN: FileCheck %s --check-prefixes=PTX,PTX80 --input-file=%t/ptx80/matmul_relu_kernel.ptx

// M=128, N=256, K=32 with the default knobs: grid (2, 2), block (16, 16).

// HOST-LABEL: func.func @matmul_relu
// HOST-DAG:     %[[C1:.+]] = arith.constant 1 : index
// HOST-DAG:     %[[C2:.+]] = arith.constant 2 : index
// HOST-DAG:     %[[C16:.+]] = arith.constant 16 : index
// HOST:         gpu.launch_func @matmul_relu_kernel::@matmul_relu_kernel blocks in (%[[C2]], %[[C2]], %[[C1]]) threads in (%[[C16]], %[[C16]], %[[C1]])
// HOST:       gpu.binary @matmul_relu_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">

// PTX70:      .version 7.0
// PTX80:      .version 8.0
// PTX-NEXT:   .target sm_80
// PTX-NEXT:   .address_size 64
// PTX:        .visible .entry matmul_relu_kernel(
// PTX-NEXT:     .param .u64 .ptr .align 16 matmul_relu_kernel_param_0,
// PTX:        .maxntid 16, 16, 1
// PTX:        ld.global.v4.b32
// PTX:        fma.rn.f32
// PTX:        max.NaN.f32
// PTX:        st.global.v4.b32
// PTX:        ret;

func.func @matmul_relu(%A: tensor<128x32xf32>, %B: tensor<32x256xf32>,
                       %C: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x256xf32>) -> tensor<128x256xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<128x32xf32>, tensor<32x256xf32>)
                      outs(%acc : tensor<128x256xf32>) -> tensor<128x256xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<128x256xf32>) outs(%C : tensor<128x256xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x256xf32>
  return %relu : tensor<128x256xf32>
}
