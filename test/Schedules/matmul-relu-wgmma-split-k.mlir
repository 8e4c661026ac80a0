// Split-K on the wgmma schedule (knob split_k): the blocks of a cluster
// (1 x 1 x split_k along grid z) each take a range of the K steps, stage
// their f32 partial tiles in shared memory in wgmma's fragment order, and
// after a cluster barrier each block sums its share of the tile's columns
// over the cluster's partials (distributed shared memory, in the order of
// the blocks), applies the epilogue once and stores those columns.

// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=1,split_k=4" \
// RUN:   | FileCheck %s
// RUN: rm -rf %t && tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=1,split_k=4" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/matmul_relu.launch.json

// Batched: the batch blocks and the splits share grid z (2 x 3 batch
// elements x 2 splits = 12); the body's batch indices come from z / 2.
// RUN: tessel-opt %S/../Runtime/Inputs/batch_linear_residual_gelu_tanh_2x3x77x100x131_bf16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=2,group_m=1,split_k=2" \
// RUN:   | FileCheck %s --check-prefix=BATCH
// BATCH:      %[[GZ:[a-z0-9_]+]] = arith.muli %c6{{[_0-9]*}}, %c2{{[_0-9]*}} : index
// BATCH:      gpu.launch clusters({{[^)]+}}) in ({{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c2{{[_0-9]*}})
// BATCH-SAME:   blocks({{[^,]+}}, {{[^,]+}}, %[[Z:[a-z0-9_]+]]) in ({{[^=]+}} = %c2{{[_0-9]*}}, {{[^=]+}} = %c2{{[_0-9]*}}, {{[^=]+}} = %[[GZ]])
// BATCH-NEXT:   %[[BZ:[a-z0-9_]+]] = arith.divui %[[Z]], %c2{{[_0-9]*}} : index
// BATCH-NOT:    gpu.block_id  z
// BATCH:        affine.delinearize_index %[[BZ]] into (2, 3)

// One batch dimension: the batch block's index is z / 2 itself, and every
// TMA load reads its batch element there (the offsets held over the
// relaunch once named an erased value, and every block loaded batch 1).
// RUN: tessel-opt %S/../Runtime/Inputs/batch_matmul_bias_relu_4x200x136x72_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=4,group_m=1,split_k=2" \
// RUN:   | FileCheck %s --check-prefix=BATCH1
// BATCH1:      blocks({{[^,]+}}, {{[^,]+}}, %[[Z:[a-z0-9_]+]]) in
// BATCH1-NEXT:   %[[BZ:[a-z0-9_]+]] = arith.divui %[[Z]], %c2{{[_0-9]*}} : index
// BATCH1-COUNT-2: nvgpu.tma.async.load %{{[0-9]+}}[%{{[0-9]+}}, %{{[0-9]+}}, %[[BZ]]]

// A split_k that does not divide the tile's 8-column groups: the block
// computes whole groups for each of its blocks (72 columns of a 64-column
// tile with split_k = 3, 24 stored by each). What the kernel cannot serve
// is refused by the op, naming the knob (a copy of the schedule offers
// more values than the shipped ones).
// RUN: mkdir -p %t.any && sed 's/from options = \[1, 2, 4, 8\]/from options = [0, 1, 2, 3, 4, 8, 16]/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t.any/split.mlir
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%t.any/split.mlir knobs=tile_m=128,tile_n=64,stages=4,split_k=3" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DIVIDE
// B's rows off 16-byte boundaries (N = 60, copied for split-K) keep whole
// 32-column groups, and 3 blocks share them: 96 columns, 32 each.
// RUN: sed 's/1024/60/g' %s | tessel-opt --tessel-apply-schedule="schedule=%t.any/split.mlir knobs=tile_m=128,tile_n=64,stages=4,split_k=3" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DIVIDE-READ
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%t.any/split.mlir knobs=tile_m=128,tile_n=128,stages=4,split_k=16" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CLUSTER
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%t.any/split.mlir knobs=tile_m=128,tile_n=128,stages=4,split_k=0" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZERO
// RUN: sed 's/tensor<128x/tensor<256x/g' %s | not tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=256,tile_n=256,stages=2,split_k=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SMEM
// RUN: sed 's/512/128/g' %s | not tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,split_k=4" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STEPS

// DIVIDE:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 72, k = 16>
// DIVIDE-NOT: error
// DIVIDE-READ:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 96, k = 16>
// DIVIDE-READ-NOT: error
// CLUSTER: error: split_k = 16 must be between 1 and 8 (the blocks of one portable cluster)
// ZERO: error: split_k = 0 must be between 1 and 8
// SMEM: error: the 256x256 tile with 2 stages and its f32 partial tile needs 263200 bytes of shared memory; an sm_90 block has at most 232448
// STEPS: error: split_k = 4 exceeds the 2 K steps of 64

// 8 blocks of 128 columns, 4 of them (one cluster) per tile; the body sees
// its block index along z divided by 4, and its rank in the cluster is the
// cluster block id. K steps [rank * 8 / 4, (rank + 1) * 8 / 4).
// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         gpu.launch clusters({{[^)]+}}) in ({{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c4{{[_0-9]*}})
// CHECK-SAME:      blocks({{[^)]+}}) in ({{[^=]+}} = %c8{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %[[GZ:[a-z0-9_]+]])
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}, {{[^=]+}} = %c3{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// 128x128 f32 partial tile (65536 bytes) within the 4-stage ring.
// CHECK:           memref.alloc() : memref<132096xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[RANK:[a-z0-9_]+]] = gpu.cluster_block_id z
// CHECK:           %[[R8:[a-z0-9_]+]] = arith.muli %[[RANK]], %c8{{[_0-9]*}}
// CHECK:           %[[BEGIN:[a-z0-9_]+]] = arith.divui %[[R8]], %c4{{[_0-9]*}}
// The producer takes part in the consumers' two cluster barriers.
// CHECK:           nvvm.cluster.arrive
// CHECK-NEXT:      nvvm.cluster.wait
// CHECK-NEXT:      nvvm.cluster.arrive
// CHECK-NEXT:      nvvm.cluster.wait
// Each block's share of K has no constant length: its first K step starts
// the accumulator (scale-d = 0) before the loop, so that no zeroed
// register reaches the epilogue (ptxas would serialize every wgmma, C7520).
// CHECK:           } else {
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-NEXT:        nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK-NOT:         nvgpu.warpgroup.mma.init.accumulator
// CHECK:             scf.for %{{.*}} = %c1{{[_0-9]*}} to %{{.*}} step
// CHECK:             } {tessel.wgmma_main_loop}
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:             nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// 16 quads of the partial per thread, then the cluster barrier.
// CHECK-COUNT-16:    vector.store {{.*}} : memref<16384xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:             nvvm.cluster.arrive
// CHECK-NEXT:        nvvm.cluster.wait
// CHECK-COUNT-4:     nvvm.mapa {{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// Its 4 of the 16 8-column groups, summed over the 4 blocks.
// CHECK-COUNT-16:    llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
// CHECK:             nvvm.cluster.arrive
// CHECK-NEXT:        nvvm.cluster.wait
// CHECK:             vector.store {{.*}} : memref<128x136xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK:             nvvm.barrier id
// CHECK:             vector.store {{.*}} : memref<128x128xf16, strided<[1024, 1], offset: ?>>, vector<8xf16>

// PTX: .explicitcluster
// PTX-NEXT: .reqnctapercluster 1, 1, 4
// PTX: %cluster_ctaid.z
// PTX-COUNT-4: mapa.shared::cluster.u64
// PTX-COUNT-16: ld.shared::cluster.v4.b32
// PTX: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;

// JSON:      "cluster": [
// JSON-NEXT:   1,
// JSON-NEXT:   1,
// JSON-NEXT:   4
// JSON-NEXT: ],
// JSON:      "grid": [
// JSON-NEXT:   8,
// JSON-NEXT:   1,
// JSON-NEXT:   4
// JSON-NEXT: ],
// JSON:      "knobs": {
// JSON:        "split_k": "4",

func.func @matmul_relu(%A: tensor<128x512xf16>, %B: tensor<512x1024xf16>,
    %C: tensor<128x1024xf16>) -> tensor<128x1024xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<128x512xf16>, tensor<512x1024xf16>)
                      outs(%acc : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<128x1024xf32>) outs(%C : tensor<128x1024xf16>) {
  ^bb0(%x: f32, %out: f16):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %c0 : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  } -> tensor<128x1024xf16>
  return %relu : tensor<128x1024xf16>
}
