// RUN: rm -rf %t && mkdir -p %t
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t --split-input-file \
// RUN:   | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s --check-prefixes=PTX,F16 --input-file=%t/matmul_relu_f16_kernel.ptx
// RUN: FileCheck %s --check-prefixes=PTX,BF16 --input-file=%t/matmul_relu_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON-F16 --input-file=%t/matmul_relu_f16.launch.json

// Half-precision inputs and output with f32 accumulation: 16-bit values are
// loaded in 16-byte vectors, widened to f32 for the FMAs and ReLU, and
// narrowed in pairs before the store.

// HOST-LABEL: func.func @matmul_relu_f16
// HOST-SAME:    memref<128x64xf16>
// HOST:         gpu.launch_func @matmul_relu_f16_kernel::@matmul_relu_f16_kernel
// HOST-LABEL: func.func @matmul_relu_bf16
// HOST-SAME:    memref<128x64xbf16>
// HOST:         gpu.launch_func @matmul_relu_bf16_kernel::@matmul_relu_bf16_kernel

// PTX:        .target sm_90
// PTX:        .visible .entry matmul_relu_{{b?}}f16_kernel(
// PTX:        ld.global.v4.b32
// F16:        cvt.f32.f16
// BF16:       cvt.f32.bf16
// PTX:        fma.rn.f32
// PTX:        max.NaN.f32
// F16:        cvt.rn.f16x2.f32
// BF16:       cvt.rn.bf16x2.f32
// PTX:        st.global.v4.b32
// F16-NOT:    bf16
// BF16-NOT:   {{[^b]}}f16

// JSON-F16:      "element_type": "f16",
// JSON-F16:      "element_type": "f16",
// JSON-F16:      "element_type": "f16",
// JSON-F16:      "accumulator_type": "f32",

func.func @matmul_relu_f16(%A: tensor<128x64xf16>, %B: tensor<64x256xf16>,
                           %C: tensor<128x256xf16>) -> tensor<128x256xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x256xf32>) -> tensor<128x256xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<128x64xf16>, tensor<64x256xf16>)
                      outs(%acc : tensor<128x256xf32>) -> tensor<128x256xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<128x256xf32>) outs(%C : tensor<128x256xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<128x256xf16>
  return %relu : tensor<128x256xf16>
}

// -----

func.func @matmul_relu_bf16(%A: tensor<128x64xbf16>, %B: tensor<64x256xbf16>,
                            %C: tensor<128x256xbf16>) -> tensor<128x256xbf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x256xf32>) -> tensor<128x256xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<128x64xbf16>, tensor<64x256xbf16>)
                      outs(%acc : tensor<128x256xf32>) -> tensor<128x256xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<128x256xf32>) outs(%C : tensor<128x256xbf16>) {
  ^bb0(%x: f32, %out: bf16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<128x256xbf16>
  return %relu : tensor<128x256xbf16>
}
