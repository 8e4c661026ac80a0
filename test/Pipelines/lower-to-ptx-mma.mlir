// RUN: rm -rf %t && mkdir -p %t
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_mma.mlir" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t --split-input-file \
// RUN:   | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s --check-prefixes=PTX,F16 --input-file=%t/matmul_relu_f16_kernel.ptx
// RUN: FileCheck %s --check-prefixes=PTX,BF16 --input-file=%t/matmul_relu_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/matmul_relu_f16.launch.json

// The mma.sync schedule lowered to PTX. The tile copies are 16-byte cp.async
// (L1-allocating), grouped and waited for with two groups in flight; A is
// read with ldmatrix x4, B with transposed ldmatrix x4; the math is
// mma.sync m16n8k16 with f32 accumulators; ReLU is max.NaN on them. The
// shared buffers (3 x 128x40 + 3 x 32x136 halves = 56832 bytes) are the
// kernel's dynamic shared memory.

// HOST-LABEL: func.func @matmul_relu_f16
// HOST:         %[[SMEM:.+]] = arith.constant 56832 : i32
// HOST:         gpu.launch_func @matmul_relu_f16_kernel::@matmul_relu_f16_kernel
// HOST-SAME:      threads in (%c128{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// HOST-SAME:      dynamic_shared_memory_size %[[SMEM]]

// PTX:        .target sm_90
// PTX:        .shared .align 16 .b8 __dynamic_shmem__0
// PTX:        cp.async.ca.shared.global [%{{.+}}], [%{{.+}}], 16;
// PTX:        cp.async.commit_group;
// PTX:        cp.async.wait_group 2;
// PTX:        bar.sync 0;
// PTX:        ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX:        ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// F16:        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// BF16:       mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX:        max.NaN.f32
// F16:        cvt.rn.f16x2.f32
// BF16:       cvt.rn.bf16x2.f32
// PTX:        st.global.b32

// JSON:      "block": [
// JSON-NEXT:   128,
// JSON:      "dynamic_shared_memory": 56832,

func.func @matmul_relu_f16(%A: tensor<256x256xf16>, %B: tensor<256x512xf16>,
                           %C: tensor<256x512xf16>) -> tensor<256x512xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x256xf16>, tensor<256x512xf16>)
                      outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x512xf32>) outs(%C : tensor<256x512xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x512xf16>
  return %relu : tensor<256x512xf16>
}

// -----

func.func @matmul_relu_bf16(%A: tensor<256x256xbf16>, %B: tensor<256x512xbf16>,
                            %C: tensor<256x512xbf16>) -> tensor<256x512xbf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x256xbf16>, tensor<256x512xbf16>)
                      outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x512xf32>) outs(%C : tensor<256x512xbf16>) {
  ^bb0(%x: f32, %out: bf16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x512xbf16>
  return %relu : tensor<256x512xbf16>
}
