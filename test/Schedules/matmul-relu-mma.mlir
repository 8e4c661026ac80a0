// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_mma.mlir" \
// RUN:   --split-input-file | FileCheck %s
// RUN: tessel-opt %s --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=64,tile_n=64,tile_k=16,warp_m=32,warp_n=32,stages=2,padding=0,group_m=1" \
// RUN:   --split-input-file | FileCheck %s --check-prefix=SMALL

// The mma.sync schedule with its default knobs (128x128 blocks, 64x64 warp
// tiles, tile_k 32, 3 stages, rows padded by 8, groups of 8 block rows):
// the tile copies are cp.async (16 bytes), three stages are in
// flight, the loop waits for all but two, and ReLU + the conversion to the
// output type run on the accumulator registers after the loop.

// CHECK-LABEL: func.func @matmul_relu
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", epilogue = ["constant 0", "maximumf 0 1"], k = 256 : i64, kind = "contraction", lhs = 0 : i64, m = 256 : i64, n = 512 : i64
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %c4{{[_0-9]*}}, {{[^=]+}} = %c2{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// CHECK:           arith.minui
// CHECK:           memref.alloc() : memref<3x128x40xf16, #gpu.address_space<workgroup>>
// CHECK:           memref.alloc() : memref<3x32x136xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-3:   nvgpu.device_async_create_group
// CHECK:           scf.for
// CHECK:             nvgpu.device_async_wait %{{.+}} {numGroups = 2 : i32}
// CHECK:             gpu.barrier
// CHECK-COUNT-4:     nvgpu.ldmatrix {{.+}} {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-4:     nvgpu.ldmatrix {{.+}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-32:    nvgpu.mma.sync
// CHECK:             gpu.barrier
// CHECK:             nvgpu.device_async_copy {{.+}}, 8, %{{[0-9]+}} : memref<128x256xf16, strided<[256, 1], offset: ?>> to memref<3x128x40xf16, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.device_async_create_group
// CHECK:             scf.yield
// CHECK:           }
// CHECK-COUNT-64:  vector.store {{.+}} : memref<128x128xf16, strided<[512, 1], offset: ?>>, vector<2xf16>
// CHECK-NOT:       linalg.
func.func @matmul_relu(%A: tensor<256x256xf16>, %B: tensor<256x512xf16>,
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

// bf16, and other knobs: 64x64 blocks of four 32x32 warps, two unpadded
// stages, no block grouping.

// CHECK-LABEL: func.func @matmul_relu_bf16
// CHECK:         nvgpu.mma.sync({{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:         arith.maximumf {{.+}} : vector<2xf32>
// CHECK:         arith.truncf {{.+}} : vector<2xf32> to vector<2xbf16>
// SMALL-LABEL: func.func @matmul_relu
// SMALL:         memref.alloc() : memref<2x64x16xf16, #gpu.address_space<workgroup>>
// SMALL:         memref.alloc() : memref<2x16x64xf16, #gpu.address_space<workgroup>>
// SMALL:         nvgpu.device_async_wait %{{.+}} {numGroups = 1 : i32}
// SMALL-LABEL: func.func @matmul_relu_bf16
// SMALL:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %c8{{[_0-9]*}}, {{[^=]+}} = %c4{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// SMALL-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}
// SMALL-NOT:       arith.minui
// SMALL:           memref.alloc() : memref<2x64x16xbf16, #gpu.address_space<workgroup>>
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
