// Block widths of whole 8-column groups (tile_n from 96 to 256, docs/wgmma.md,
// "Tiles 160 columns wide"): the epilogue stages the tile in rows padded by
// stagePad elements, 8 for widths of whole 16-column groups and 16 for the
// others, so that the eight rows a warp's fragment stores reach lie 8 or 24
// elements apart modulo 16 and no two share a bank's word. Padded by 8, a
// 184-wide row is 384 bytes (three times 128) and every row of a warp's
// stores hit the same banks (an H200 ran 128x184 blocks 0.71x as fast as
// 128x192 ones at 753x11877x200; bench/results/hopper-v2, "Tiles that fill
// their waves").
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=184,stages=4,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=0" \
// RUN:   | FileCheck %s --check-prefix=W184
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=168,stages=4,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=0" \
// RUN:   | FileCheck %s --check-prefix=W168
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=160,stages=4,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=0" \
// RUN:   | FileCheck %s --check-prefix=W160
// A width between the options (100: not a whole 8-column group) is refused,
// located at the knob, before anything is built.
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=100,stages=4,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=0" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=W100
// W100: matmul_relu_wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: value 100 is not among the options of knob 'tile_n': [64, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256]
// The 184-wide block computes m64n184k16 per warpgroup and stages rows of
// 184 + 16 elements; 168 + 16; 160 + 8 as before.
// W184:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 184, k = 16>
// W184:     memref.view {{.+}} to memref<128x200xf16, #gpu.address_space<workgroup>>
// W168:     memref.view {{.+}} to memref<128x184xf16, #gpu.address_space<workgroup>>
// W160:     memref.view {{.+}} to memref<128x168xf16, #gpu.address_space<workgroup>>

func.func @linear(%x: tensor<1024x4096xf16>, %w: tensor<2000x4096xf16>,
                  %y: tensor<1024x2000xf16>) -> tensor<1024x2000xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1024x2000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1024x2000xf32>) -> tensor<1024x2000xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<1024x4096xf16>, tensor<2000x4096xf16>)
      outs(%acc : tensor<1024x2000xf32>) -> tensor<1024x2000xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1024x2000xf32>) outs(%y : tensor<1024x2000xf16>) {
  ^bb0(%v: f32, %out: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1024x2000xf16>
  return %relu : tensor<1024x2000xf16>
}
