// Block tiles 160 columns wide (and blocks whose N is a multiple of 32 but
// not of 64): the wgmma instruction is m64n160k16, not a 192-wide one, and
// B's ring holds what its layout loads.
//
// RUN: rm -rf %t && mkdir -p %t && split-file %s %t
//
// Weight [n, k] (K-major B): B's box is the whole 160x64 tile, one TMA load
// per stage of 16384 + 20480 bytes; the persistent epilogue stages each
// warpgroup's 64 rows in 64-, 64- and 32-column pieces.
// RUN: tessel-opt %t/linear.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=160,stages=4,group_m=8,split_k=1,persistent=1,cluster=1" \
// RUN:   | FileCheck %s --check-prefix=NK
// NK:         nvgpu.tma.create.descriptor %{{.+}} box[%c160{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<160x64xf16, #gpu.address_space<workgroup>>
// NK:         nvgpu.mbarrier.arrive.expect_tx %{{.+}}, %c36864
// NK:         nvgpu.tma.async.load {{.+}} -> memref<128x64xf16, #gpu.address_space<workgroup>>
// NK:         nvgpu.tma.async.load {{.+}} -> memref<160x64xf16, #gpu.address_space<workgroup>>
// NK:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 160, k = 16>
// RUN: tessel-opt %t/linear.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=160,stages=4,group_m=8,split_k=1,persistent=1,cluster=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/nk -o /dev/null
// RUN: FileCheck %s --check-prefix=NK-PTX --input-file=%t/nk/linear_kernel.ptx
// NK-PTX:     wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16
// NK-PTX-NOT: m64n192k16

// B stored [k, n] (MN-major): B is loaded in 64-column boxes, so a 160-wide
// tile takes three of them (the last read whole, 24576 bytes of B per
// stage); wgmma reads the first 160 columns.
// RUN: tessel-opt %t/kn.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=160,stages=4,group_m=8,split_k=1,persistent=0,cluster=1" \
// RUN:   | FileCheck %s --check-prefix=KN
// KN:         nvgpu.mbarrier.arrive.expect_tx %{{.+}}, %c40960
// KN:         nvgpu.tma.async.load {{.+}} -> memref<128x64xf16, #gpu.address_space<workgroup>>
// KN-COUNT-3: nvgpu.tma.async.load {{.+}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// KN-NOT:     nvgpu.tma.async.load
// KN:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 160, k = 16>

// N = 24 in a 64-column tile: the block computes 24 columns (m64n24k16),
// wgmma reading the first 24 of B's 64-column box. N = 20 puts B's rows off
// 16-byte boundaries (the producers read or copy them): whole 32-column
// groups (m64n32k16).
// RUN: sed 's/x320x/x24x/g; s/256x320/256x24/g' %t/kn.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=64,stages=4,group_m=8,split_k=1,persistent=0,cluster=1" \
// RUN:   | FileCheck %s --check-prefix=NARROW
// NARROW:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 24, k = 16>
// NARROW-NOT: n = 32, k = 16
// RUN: sed 's/x320x/x20x/g; s/256x320/256x20/g' %t/kn.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=64,stages=4,group_m=8,split_k=1,persistent=0,cluster=1" \
// RUN:   | FileCheck %s --check-prefix=NARROW-READ
// NARROW-READ:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 32, k = 16>
// NARROW-READ-NOT: n = 24, k = 16

//--- linear.mlir
func.func @linear(%x: tensor<256x256xf16>, %w: tensor<320x256xf16>, %y_out: tensor<256x320xf16>) -> tensor<256x320xf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x320xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<256x320xf32>) -> tensor<256x320xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<256x256xf16>, tensor<320x256xf16>)
      outs(%acc : tensor<256x320xf32>) -> tensor<256x320xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x320xf32>) outs(%y_out : tensor<256x320xf16>) {
  ^bb0(%a: f32, %o: f16):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x320xf16>
  return %y : tensor<256x320xf16>
}

//--- kn.mlir
func.func @matmul_relu(%a: tensor<256x256xf16>, %b: tensor<256x320xf16>, %c_out: tensor<256x320xf16>) -> tensor<256x320xf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x320xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<256x320xf32>) -> tensor<256x320xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x320xf16>)
      outs(%acc : tensor<256x320xf32>) -> tensor<256x320xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x320xf32>) outs(%c_out : tensor<256x320xf16>) {
  ^bb0(%x: f32, %o: f16):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %z : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x320xf16>
  return %y : tensor<256x320xf16>
}
