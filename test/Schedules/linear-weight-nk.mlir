// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=4,group_m=8,split_k=1" \
// RUN:   | FileCheck %s --check-prefix=WGMMA
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_mma.mlir" \
// RUN:   | FileCheck %s --check-prefix=MMA

// A Linear layer with PyTorch's weight layout: W stored [n, k] (out, in),
// so B is K-major, as A is.
//
// wgmma: B's tensor map has one 256x64 box (the whole K-major tile, as A's
// 128x64), one TMA load per stage; the consumers run one m64n256k16 wgmma
// per 16-column slice of a stage (B not transposed: "col" is K-major),
// both descriptors advanced 32 bytes into their swizzled rows (2 in
// 16-byte units), in one wgmma group per stage, as with an MN-major B.
// WGMMA-LABEL: func.func @linear(
// WGMMA-SAME:    %[[X:[a-z0-9_]+]]: memref<256x256xf16>, %[[W:[a-z0-9_]+]]: memref<512x256xf16>
// WGMMA-SAME:    rhs_transposed = true
// WGMMA:         nvgpu.tma.create.descriptor %{{.+}} box[%c128{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>
// WGMMA:         %[[DESCB:[a-z0-9_]+]] = nvgpu.tma.create.descriptor %{{.+}} box[%c256{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<256x64xf16, #gpu.address_space<workgroup>>
// WGMMA:         nvgpu.mbarrier.arrive.expect_tx %{{.+}}, %c49152
// WGMMA:         nvgpu.tma.async.load {{.+}} -> memref<128x64xf16, #gpu.address_space<workgroup>>
// WGMMA:         nvgpu.tma.async.load %[[DESCB]]{{.+}} -> memref<256x64xf16, #gpu.address_space<workgroup>>
// WGMMA-NOT:     nvgpu.tma.async.load
// WGMMA:         } else {
// WGMMA:         nvvm.wgmma.fence.aligned
// WGMMA-NEXT:    %[[W0:[a-z0-9_]+]] = nvvm.wgmma.mma_async %[[DA:[a-z0-9_]+]], %[[DB:[a-z0-9_]+]], %{{.+}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// WGMMA-NEXT:    %[[C2:[a-z0-9_]+]] = llvm.mlir.constant(2 : i64) : i64
// WGMMA-NEXT:    %[[A1:[a-z0-9_]+]] = llvm.add %[[DA]], %[[C2]] : i64
// WGMMA-NEXT:    %[[B1:[a-z0-9_]+]] = llvm.add %[[DB]], %[[C2]] : i64
// WGMMA-NEXT:    nvvm.wgmma.mma_async %[[A1]], %[[B1]], %[[W0]], <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// WGMMA-COUNT-2: nvvm.wgmma.mma_async {{.+}} B[<f16>, <one>, <col>]
// WGMMA-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// WGMMA-NEXT:    nvvm.wgmma.wait.group.sync.aligned 1
// WGMMA-NOT:     nvvm.wgmma.commit.group.sync.aligned
// WGMMA:         nvgpu.mbarrier.arrive
// WGMMA:         } {tessel.wgmma_main_loop}

// mma.sync: B's stages are [n, k + padding] like A's, copied with the same
// 16-byte cp.async, and read by ldmatrix without .trans.
// MMA-LABEL: func.func @linear(
// MMA:           memref.alloc() : memref<3x128x40xf16, #gpu.address_space<workgroup>>
// MMA:           memref.alloc() : memref<3x128x40xf16, #gpu.address_space<workgroup>>
// MMA:           scf.for
// MMA-COUNT-4:     nvgpu.ldmatrix {{.+}} {numTiles = 4 : i32, transpose = false}
// MMA-COUNT-4:     nvgpu.ldmatrix {{.+}} {numTiles = 4 : i32, transpose = false}
// MMA-NOT:         transpose = true
// MMA-COUNT-32:    nvgpu.mma.sync
func.func @linear(%x: tensor<256x256xf16>, %w: tensor<512x256xf16>, %b: tensor<512xf16>, %y_out: tensor<256x512xf16>) -> tensor<256x512xf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<256x256xf16>, tensor<512x256xf16>)
      outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<256x512xf32>, tensor<512xf16>) outs(%y_out : tensor<256x512xf16>) {
  ^bb0(%a: f32, %bi: f16, %o: f16):
    %bf = arith.extf %bi : f16 to f32
    %v = arith.addf %a, %bf : f32
    %r = arith.maximumf %v, %fzero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x512xf16>
  return %y : tensor<256x512xf16>
}
