// Clusters of two blocks that multicast the operand tiles they share (knob
// cluster = 2 of the wgmma schedule). The launch runs in clusters along x,
// or along y where the grid's x extent is odd; a persistent launch pairs
// tiles 2i and 2i + 1 along x. Each block recomputes its partner's tile
// (its block index, or its persistent tile, with the lowest bit flipped,
// through the group_m order) and, for an operand tile the two share, loads
// its half of it with multicast_mask = 3 through a tensor map of half
// boxes; an operand tile they do not share is loaded whole. The empty
// barriers count the partner's consumer warps too, which release each
// stage remotely (mapa, mbarrier.arrive at cluster scope); cluster
// barriers follow the barriers' initialization and precede the exit.

// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,cluster=2" \
// RUN:   | FileCheck %s --check-prefix=Y
// RUN: rm -rf %t && tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=3,group_m=1,cluster=2" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/matmul_relu.launch.json
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=1,cluster=2" \
// RUN:   | FileCheck %s --check-prefix=PERSISTENT
// RUN: rm -rf %t.p && tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=4,group_m=8,persistent=1,cluster=2" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t.p -o /dev/null
// RUN: FileCheck %s --check-prefix=PJSON < %t.p/matmul_relu.launch.json

// 2 x 3 tiles of 128x128: x (N) odd, so the cluster pairs block rows (y).
// The host creates the whole-box maps and the half-box ones.
// Y:      nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<128x64xf16
// Y:      nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<64x64xf16
// Y:      nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<64x64xf16
// Y:      nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<32x64xf16
// A's last block row holds 200 - 128 = 72 rows: a box of those alone.
// Y:      nvgpu.tma.create.descriptor {{.*}} box[%c72, %c64] {{.*}} -> <tensor = memref<72x64xf16
// Y:      gpu.launch clusters({{[^)]+}}) in ({{[^=]+}} = %c1, {{[^=]+}} = %c2, {{[^=]+}} = %c1) blocks({{[^)]+}}) in ({{[^=]+}} = %c3, {{[^=]+}} = %c2, {{[^=]+}} = %c1)
// Y:      %[[RANK:.+]] = gpu.cluster_block_id y
// Y:      %[[PARTNER:.+]] = arith.xori %[[RANK]], %c1
// The empty barriers: 2 consumer warpgroups' 256 threads and the partner's
// 8 warps.
// Y:      nvgpu.mbarrier.init %{{.+}}[%c0], %c264
// Y:      nvvm.fence.mbarrier.init
// Y:      nvvm.cluster.arrive
// Y-NEXT: nvvm.cluster.wait
// The partner's block row: the block index along y with its lowest bit
// flipped, through the group_m order.
// Y:      arith.xori %{{.+}}, %c1 : index
// An A tile the block loads alone and that ends past A's rows is an edge
// tile: it loads its 72 rows and expects 56 x 128 bytes less.
// Y:      %[[LEFT:.+]] = arith.subi %c200, %[[M0:.+]] : index
// Y:      %[[EDGE:.+]] = arith.cmpi eq, %[[LEFT]], %c72
// Y:      %[[ALONE:.+]] = arith.andi %[[EDGE]], %{{.+}} : i1
// Y:      %[[LESS:.+]] = arith.select %[[ALONE]], %c7168, %c0
// Y:      %[[TX:.+]] = arith.subi %c32768, %[[LESS]]
// B [k, n]: the last column of tiles holds 312 - 2 x 128 = 56 columns, so
// its second 64-column box lies past N; loaded alone, it is skipped.
// Y:      %[[PAST:.+]] = arith.select %{{.+}}, %c8192, %c0
// Y:      %[[TX2:.+]] = arith.subi %[[TX]], %[[PAST]]
// Y:      nvgpu.mbarrier.arrive.expect_tx %{{.+}}, %[[TX2]]
// Y:      scf.if
// Y:        nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16 {{.*}} -> memref<64x64xf16
// Y:      } else {
// Y:        scf.if %[[ALONE]] {
// Y:          nvgpu.tma.async.load {{.*}} -> memref<72x64xf16
// Y:        } else {
// Y:          nvgpu.tma.async.load {{.*}} -> memref<128x64xf16
// Y:      scf.if
// Y:        nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16 {{.*}} -> memref<32x64xf16
// Y:        nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16 {{.*}} -> memref<32x64xf16
// Y:      } else {
// Y:        nvgpu.tma.async.load {{.*}} -> memref<64x64xf16
// Y:        scf.if %{{.+}} {
// Y-NEXT:   } else {
// Y:          nvgpu.tma.async.load {{.*}} -> memref<64x64xf16
// The consumers release a stage in both blocks.
// Y:      nvgpu.mbarrier.arrive %{{.+}}[%{{.+}}] :
// Y:      nvgpu.mbarrier.get
// Y:      nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// Y:      scf.if
// Y-NEXT:   nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// Y:      nvvm.cluster.arrive
// Y-NEXT: nvvm.cluster.wait
// Y-NEXT: gpu.terminator

// 2 x 2 tiles of 128x256: clusters along x, the kernel compiled for them.
// PTX:      .explicitcluster
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// PTX:      fence.mbarrier_init.release.cluster;
// PTX:      barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// PTX:      cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX:      mapa.shared::cluster.u64
// PTX:      mbarrier.arrive.shared::cluster.b64
// JSON:     "cluster": [
// JSON-NEXT:  2,
// JSON-NEXT:  1,
// JSON-NEXT:  1
// JSON:     "grid": [
// JSON-NEXT:  2,
// JSON-NEXT:  2,

// Persistent: 6 tiles in clusters of two along x; the partner's tile is
// the tile loop's with its lowest bit flipped.
// PERSISTENT:      gpu.launch clusters({{[^)]+}}) in ({{[^=]+}} = %c2, {{[^=]+}} = %c1, {{[^=]+}} = %c1) blocks({{[^)]+}}) in ({{[^=]+}} = %c6, {{[^=]+}} = %c1, {{[^=]+}} = %c1)
// PERSISTENT:      gpu.cluster_block_id x
// PERSISTENT:      scf.for %[[TILE:.+]] = %{{.+}} to %c6 step
// PERSISTENT:        arith.xori %[[TILE]], %c1 : index
// PERSISTENT:        multicast_mask = %c3_i16
// PERSISTENT:      } {tessel.persistent_tiles = 6 : i64}
// PJSON:     "cluster": [
// PJSON-NEXT:  2,
// PJSON:     "persistent": true

// What a cluster cannot serve is refused, naming the knob.
// RUN: mkdir -p %t.any && sed 's/from options = \[1, 2\]/from options = [1, 2, 3]/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t.any/cluster.mlir
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%t.any/cluster.mlir knobs=tile_m=128,tile_n=128,stages=4,cluster=3" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VALUE
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,cluster=2,split_k=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPLIT
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=256,tile_n=128,stages=3,cluster=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ODD
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=256,tile_n=128,stages=3,persistent=1,cluster=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ODD-TILES
// RUN: sed -e 's/xf16>/xf32>/g' -e 's/truncf %r : f32 to f16/addf %r, %c0 : f32/' -e 's/%out: f16/%out: f32/' -e 's/yield %h : f16/yield %h : f32/' %s \
// RUN:   | not tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=2,cluster=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=X3
// Misaligned rows (N = 300 f16) are copied for TMA, not read in the kernel.
// RUN: sed 's/312/300/g' %s | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,cluster=2" \
// RUN:   | FileCheck %s --check-prefix=COPY

// VALUE: cluster.mlir:{{[0-9]+}}:{{[0-9]+}}: error: cluster = 3 must be 1 or 2
// SPLIT: error: cluster = 2 with split_k = 2: split-K runs its blocks in clusters of its own (use one of them)
// ODD: error: cluster = 2 needs an even number of blocks along x or y; the grid has 3 x 1
// ODD-TILES: error: cluster = 2 with persistent = 1 needs an even number of tiles; the grid has 3
// X3: error: cluster = 2 does not serve f32 inputs at FP32 accuracy (3xTF32: the producer splits each tile); use cluster = 1, or tessel.allow_tf32
// COPY:      gpu.alloc {{ *}}() : memref<520x320xf16>
// COPY:      gpu.launch clusters

func.func @matmul_relu(%A: tensor<200x520xf16>, %B: tensor<520x312xf16>,
    %C: tensor<200x312xf16>) -> tensor<200x312xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<200x312xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<200x312xf32>) -> tensor<200x312xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<200x520xf16>, tensor<520x312xf16>)
                      outs(%acc : tensor<200x312xf32>) -> tensor<200x312xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<200x312xf32>) outs(%C : tensor<200x312xf16>) {
  ^bb0(%x: f32, %out: f16):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %c0 : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  } -> tensor<200x312xf16>
  return %relu : tensor<200x312xf16>
}
