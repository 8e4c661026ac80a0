// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=2,group_m=8,split_k=1" \
// RUN:   | FileCheck %s --check-prefix=WGMMA
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=2,padding=8,group_m=8,stage_output=0" \
// RUN:   | FileCheck %s --check-prefix=MMA
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=64,tile_n=128,tile_k=8,thread_m=4,thread_n=8" \
// RUN:   | FileCheck %s --check-prefix=SIMT
// RUN: tessel-opt %S/../Runtime/Inputs/batch_linear_residual_gelu_tanh_2x3x77x100x131_bf16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1" \
// RUN:   | FileCheck %s --check-prefix=WHOLE-WGMMA
// RUN: tessel-opt %S/../Runtime/Inputs/batch_linear_residual_gelu_tanh_2x3x77x100x131_bf16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=3,padding=8,group_m=8,stage_output=0" \
// RUN:   | FileCheck %s --check-prefix=WHOLE-MMA

// linalg.batch_matmul + bias + ReLU on all three schedules: each batch
// element gets its own blocks along grid z (transform.tessel.
// tile_batch_to_blocks, then merge_block_foralls), and the block works on
// its element's matrices, views of the batched arguments at block_id z.
//
// wgmma: 3-D tensor maps of the whole batched A and B, boxes of one
// matrix's tile, TMA loads at (k, m, batch) and (n, k, batch); the wgmma
// descriptors read 2-D box types.
// WGMMA-LABEL: func.func @bmm(
// WGMMA-SAME:    %[[A:[a-z0-9]+]]: memref<4x200x72xf16>, %[[B:[a-z0-9]+]]: memref<4x72x136xf16>
// WGMMA-SAME:    batch = [4]
// WGMMA:         %[[MA:.+]] = nvgpu.tma.create.descriptor %{{.+}} box[%c1{{[_0-9]*}}, %c128{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<1x128x64xf16, #gpu.address_space<workgroup>>
// WGMMA:         %[[MB:.+]] = nvgpu.tma.create.descriptor %{{.+}} box[%c1{{[_0-9]*}}, %c64{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<1x64x64xf16, #gpu.address_space<workgroup>>
// WGMMA:         gpu.launch blocks({{.+}}) in ({{.+}} = %c2{{[_0-9]*}}, {{.+}} = %c2{{[_0-9]*}}, {{.+}} = %c4{{[_0-9]*}})
// WGMMA:           %[[Z:.+]] = gpu.block_id z
// WGMMA:           nvgpu.tma.async.load %[[MA]][%{{.+}}, %{{.+}}, %[[Z]]], {{.+}} -> memref<1x128x64xf16, #gpu.address_space<workgroup>>
// WGMMA-COUNT-2:   nvgpu.tma.async.load %[[MB]][%{{.+}}, %{{.+}}, %[[Z]]], {{.+}} -> memref<1x64x64xf16, #gpu.address_space<workgroup>>
// WGMMA:           nvgpu.warpgroup.generate.descriptor {{.+}} <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>
// WGMMA:           nvgpu.warpgroup.generate.descriptor {{.+}} <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>
// WGMMA:           nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>

// mma.sync: cp.async from the element's tiles.
// MMA-LABEL: func.func @bmm(
// MMA:         gpu.launch blocks({{.+}}) in ({{.+}} = %c2{{[_0-9]*}}, {{.+}} = %c2{{[_0-9]*}}, {{.+}} = %c4{{[_0-9]*}})
// MMA:           %[[Z:.+]] = gpu.block_id z
// MMA:           memref.subview %{{.+}}[%[[Z]], 0, 0] [1, 200, 72] [1, 1, 1] : memref<4x200x72xf16> to memref<200x72xf16, strided<[72, 1], offset: ?>>
// MMA:           memref.subview %{{.+}}[%[[Z]], 0, 0] [1, 72, 136] [1, 1, 1] : memref<4x72x136xf16> to memref<72x136xf16, strided<[136, 1], offset: ?>>
// MMA:           nvgpu.device_async_copy
// MMA:           nvgpu.mma.sync

// The SIMT kernel reads the batched arguments at block_id z.
// SIMT-LABEL: func.func @bmm(
// SIMT:         gpu.launch blocks({{.+}}) in ({{.+}} = %c2{{[_0-9]*}}, {{.+}} = %c4{{[_0-9]*}}, {{.+}} = %c4{{[_0-9]*}})
// SIMT:           %[[Z:.+]] = gpu.block_id z
// SIMT:           vector.transfer_read %{{.+}}[%[[Z]], %{{.+}}, %{{.+}}], {{.+}} : memref<4x200x72xf16>, vector<4x8xf16>
// SIMT:           vector.transfer_read %{{.+}}[%[[Z]], %{{.+}}, %{{.+}}], {{.+}} : memref<4x72x136xf16>, vector<8x8xf16>
// SIMT:           vector.contract
// Two batch dimensions (2x3) whose 77x100 matrices one block covers:
// bufferization leaves the block's accumulator in the batch loop, and the
// merge moves it into the block. The bf16 rows (K = 131) are copied to
// aligned rows first, all six matrices of an operand in one kernel (18
// blocks); wgmma reads the copies through 4-D tensor maps (rows past 77 are
// zero-filled, not the next matrix's), mma.sync computes whole 64x64 warp
// tiles.
// WHOLE-WGMMA:     gpu.alloc () : memref<2x3x77x192xbf16>
// WHOLE-WGMMA:     gpu.alloc () : memref<2x3x100x192xbf16>
// WHOLE-WGMMA:     gpu.launch blocks({{.+}}) in ({{.+}} = %c18{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}})
// WHOLE-WGMMA:     nvgpu.tma.create.descriptor %{{.+}} box[%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c128{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xbf16> -> <tensor = memref<1x1x128x64xbf16
// WHOLE-WGMMA:     gpu.launch blocks({{.+}}) in ({{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c6{{[_0-9]*}}) threads({{.+}}) in ({{.+}} = %c128{{[_0-9]*}}, {{.+}} = %c3{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}})
// WHOLE-WGMMA:       affine.delinearize_index %{{.+}} into (2, 3)
// WHOLE-MMA:       gpu.launch blocks({{.+}}) in ({{.+}} = %c18{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}})
// WHOLE-MMA:       gpu.launch blocks({{.+}}) in ({{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c6{{[_0-9]*}}) threads({{.+}}) in ({{.+}} = %c128{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}})
// WHOLE-MMA:         nvgpu.mma.sync
func.func @bmm(%a: tensor<4x200x72xf16>, %b: tensor<4x72x136xf16>, %bias: tensor<136xf16>, %out: tensor<4x200x136xf16>) -> tensor<4x200x136xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x200x136xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x200x136xf32>) -> tensor<4x200x136xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<4x200x72xf16>, tensor<4x72x136xf16>)
      outs(%acc : tensor<4x200x136xf32>) -> tensor<4x200x136xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x200x136xf32>, tensor<136xf16>) outs(%out : tensor<4x200x136xf16>) {
  ^bb0(%x: f32, %bi: f16, %o: f16):
    %bf = arith.extf %bi : f16 to f32
    %v = arith.addf %x, %bf : f32
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x200x136xf16>
  return %y : tensor<4x200x136xf16>
}
