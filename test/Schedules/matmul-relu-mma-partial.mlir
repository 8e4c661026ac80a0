// Partial tiles in the mma.sync schedule: 1000 = 7 x 128 + 104 rows and
// columns, K = 1000 = 31 x 32 + 8. The tile copies into shared memory
// become cp.async with a source size below 16 bytes (zero-fill) where a
// 16-byte chunk lies past the matrix, and the accumulator pairs are stored
// whole inside it, under a mask at its edge.
//
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=3,padding=8,group_m=8,stage_output=0" \
// RUN:   | FileCheck %s
// RUN: rm -rf %t && tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=3,padding=8,group_m=8,stage_output=0" \
// RUN:   --tessel-lower-to-ptx="chip=sm_80" --tessel-export-kernels=dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_relu_kernel.ptx
//
// K = 999: A's rows are copied into an aligned workspace by a kernel of its
// own first. On sm_90 the matmul kernel waits for the copy on the GPU
// (griddepcontrol.wait) and is marked waits_for_previous; sm_80 has no
// griddepcontrol, so neither appears there.
// RUN: sed 's/1000x1000xf16>, %%B/1000x999xf16>, %%B/; s/%%B: tensor<1000x1000xf16>/%%B: tensor<999x1000xf16>/; s/ins(%%A, %%B : tensor<1000x1000xf16>, tensor<1000x1000xf16>)/ins(%%A, %%B : tensor<1000x999xf16>, tensor<999x1000xf16>)/' %s > %t.k999.mlir
// RUN: rm -rf %t.sm80 %t.sm90
// RUN: tessel-opt %t.k999.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=3,padding=8,group_m=8,stage_output=0" \
// RUN:   --tessel-lower-to-ptx="chip=sm_80" --tessel-export-kernels=dir=%t.sm80 -o /dev/null
// RUN: not grep -l griddepcontrol %t.sm80/matmul_relu_kernel.ptx %t.sm80/matmul_relu_kernel_0.ptx
// RUN: not grep waits_for_previous %t.sm80/matmul_relu.launch.json
// RUN: tessel-opt %t.k999.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=3,padding=8,group_m=8,stage_output=0" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90" --tessel-export-kernels=dir=%t.sm90 -o /dev/null
// RUN: FileCheck %s --check-prefix=SM90 --input-file=%t.sm90/matmul_relu_kernel_0.ptx
// RUN: FileCheck %s --check-prefix=SM90-JSON --input-file=%t.sm90/matmul_relu.launch.json
// SM90: griddepcontrol.wait;
// SM90-JSON: "launches": [
// SM90-JSON-NOT: "waits_for_previous"
// SM90-JSON: "kernel": "matmul_relu_kernel"
// SM90-JSON: "waits_for_previous": true

// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         gpu.launch
// The K loop covers 1000 in steps of 32; the last step's copies are
// masked by the 8 columns left.
// CHECK:           scf.for %{{.+}} = %c0{{.*}} to %c1000{{.*}} step %c32
// CHECK:             vector.create_mask
// CHECK:             nvgpu.device_async_copy {{.+}}, 8, %{{.+}} :
// CHECK:           vector.maskedstore

// PTX: cp.async.ca.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], 16, %r{{[0-9]+}};
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// C = relu(A * B): A is 1000x1000, B is 1000x1000, row-major, f16 inputs,
// f32 accumulation, f16 output written into C.
func.func @matmul_relu(%A: tensor<1000x1000xf16>, %B: tensor<1000x1000xf16>,
                       %C: tensor<1000x1000xf16>) -> tensor<1000x1000xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1000x1000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<1000x1000xf16>, tensor<1000x1000xf16>)
                      outs(%acc : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1000x1000xf32>) outs(%C : tensor<1000x1000xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1000x1000xf16>
  return %relu : tensor<1000x1000xf16>
}
