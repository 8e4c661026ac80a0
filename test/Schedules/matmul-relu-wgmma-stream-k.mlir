// Stream-K on the wgmma schedule (knob persistent = 2): persistent blocks
// that share out the K steps of the tiles of the last partial wave (with
// one whole wave more where they fill less than half a wave) equally, a
// share at a time from the block's last one. A share that ends inside its
// tile leaves its partial tile (f32, in the consumers' register order) in
// a workspace and raises its warpgroup's flag (the warpgroup's barrier,
// then its first thread's release fence and atomic add); the block whose
// share ends the tile waits for the flags of the blocks before it that
// hold the tile's earlier K steps (an acquire load), adds their partials
// and runs the epilogue, then clears the flags it read. So the flags are
// zero after every launch: the runtime zeroes them once, when it allocates
// them for a stream, and keeps them for the next call there (the
// workspace's gpu.memset {tessel.left_zeroed}, "zeroed" and "left_zeroed"
// in launch.json).

// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=2" \
// RUN:   | FileCheck %s
// RUN: rm -rf %t && tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=2" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/matmul_relu.launch.json

// B's rows not 16-byte aligned (N = 300): copied by a launch before the
// stream-K kernel's; the flags are kept and zeroed as without it.
// RUN: rm -rf %t.copy && sed 's/312/300/g' %s | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=2" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t.copy -o /dev/null
// RUN: FileCheck %s --check-prefix=COPY < %t.copy/matmul_relu.launch.json
// COPY:      "launches": [
// COPY:        "grid": [
// COPY-NEXT:     20,
// COPY:        "grid": [
// COPY-NEXT:     54,
// COPY:        "persistent": true,
// COPY:      "workspaces": [
// COPY:          520,
// COPY-NEXT:     320
// COPY:          884736
// COPY:        "left_zeroed": true,
// COPY-NEXT:   "shape": [
// COPY-NEXT:     108
// COPY-NEXT:   ],
// COPY-NEXT:   "zeroed": true

// What stream-K cannot serve is refused by the op, naming the knobs (the
// rule's model refuses the same points: KnobChoice.cpp).
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,persistent=2,cluster=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CLUSTER
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,persistent=2,split_k=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPLIT
// CLUSTER: error: persistent = 2 (stream-K) with cluster = 2: stream-K blocks share K steps, not operand tiles (use one of them)
// SPLIT: error: persistent = 2 with split_k = 2: a persistent kernel does not split K across a cluster (use one of them)

// 2 x 3 tiles of 128x128 (M = 200, N = 312), 9 K steps each: the launch
// has a block per K step of the tiles (54), a partial tile per block in
// the workspace and a flag per block and consumer warpgroup, zeroed first.
// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         %[[PARTIALS:[a-z0-9_]+]] = gpu.alloc {{ *}}() : memref<884736xf32>
// CHECK-NEXT:    %[[FLAGS:[a-z0-9_]+]] = gpu.alloc {{ *}}() : memref<108xi32>
// CHECK-NEXT:    %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : i32
// CHECK-NEXT:    gpu.memset {{ *}}%[[FLAGS]], %[[ZERO]] : memref<108xi32>, i32 {tessel.left_zeroed}
// CHECK-NEXT:    %[[BLOCKS:[a-z0-9_]+]] = arith.constant 54 : index
// CHECK-NEXT:    gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %[[BLOCKS]], {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// The producer's share loop: the tiles left over by whole waves of the
// G = grid_dim.x blocks (L = 6 % G) are shared where they fill half a wave
// and give each block a K step (2 L >= G, 9 L >= G), else those and a wave
// more (at most all 6); block g takes their K steps [g * I / G,
// (g + 1) * I / G) (I = 9 per tile).
// CHECK:           %[[G:[a-z0-9_]+]] = gpu.grid_dim  x
// CHECK:           %[[LEFT:[a-z0-9_]+]] = arith.remui %c6, %[[G]]
// CHECK-NEXT:      %[[L2:[a-z0-9_]+]] = arith.addi %[[LEFT]], %[[LEFT]]
// CHECK-NEXT:      %[[HALF:[a-z0-9_]+]] = arith.cmpi uge, %[[L2]], %[[G]]
// CHECK:           %[[LSTEPS:[a-z0-9_]+]] = arith.muli %[[LEFT]], %c9
// CHECK-NEXT:      %[[EACH:[a-z0-9_]+]] = arith.cmpi uge, %[[LSTEPS]], %[[G]]
// CHECK-NEXT:      %[[ENOUGH:[a-z0-9_]+]] = arith.andi %[[HALF]], %[[EACH]]
// CHECK-NEXT:      %[[MORE:[a-z0-9_]+]] = arith.addi %[[G]], %[[LEFT]]
// CHECK-NEXT:      %[[MOREALL:[a-z0-9_]+]] = arith.minui %[[MORE]], %c6
// CHECK-NEXT:      %[[SOME:[a-z0-9_]+]] = arith.select %[[ENOUGH]], %[[LEFT]], %[[MOREALL]]
// CHECK-NEXT:      %[[WHOLE:[a-z0-9_]+]] = arith.cmpi eq, %[[LEFT]], %c0
// CHECK-NEXT:      %[[SHARED:[a-z0-9_]+]] = arith.select %[[WHOLE]], %c0, %[[SOME]]
// CHECK-NEXT:      %[[STEPS:[a-z0-9_]+]] = arith.muli %[[SHARED]], %c9
// The loop runs the block's shares, then its whole tiles, carrying the
// ring position; a share's K loop starts at its first K step.
// CHECK:           scf.for %[[U:[a-z0-9_]+]] = %c0 to %{{.+}} step %c1 iter_args(%{{.+}} = %c0, %{{.+}} = %false) -> (index, i1) {
// CHECK:             %[[LAST:[a-z0-9_]+]] = arith.subi %{{.+}}, %[[U]]
// CHECK:             %[[TILE:[a-z0-9_]+]] = arith.select %{{.+}}, %[[LAST]], %{{.+}}
// CHECK:             %[[KBEGIN:[a-z0-9_]+]] = arith.select %{{.+}}, %{{.+}}, %c0
// CHECK:             %[[KEND:[a-z0-9_]+]] = arith.select %{{.+}}, %{{.+}}, %c9
// CHECK-NEXT:        %[[KSTEPS:[a-z0-9_]+]] = arith.subi %[[KEND]], %[[KBEGIN]]
// CHECK-NEXT:        scf.for %[[KT:[a-z0-9_]+]] = %c0 to %[[KSTEPS]] step %c1 iter_args
// CHECK:               %[[K:[a-z0-9_]+]] = arith.addi %[[KBEGIN]], %[[KT]]
// CHECK-NEXT:          arith.muli %[[K]], %c64
// CHECK:               nvgpu.tma.async.load
// CHECK:           } {tessel.persistent_tiles = 54 : i64}
// The consumers: after the share's last wgmma, a share that ends before
// the tile's 9th step stores its 16 quads of accumulators per thread and
// raises its warpgroup's flag ...
// CHECK:         } else {
// CHECK:             %[[CKEND:[a-z0-9_]+]] = arith.select %{{.+}}, %{{.+}}, %c9
// CHECK:             } {tessel.wgmma_main_loop}
// CHECK:             %[[PARTIAL:[a-z0-9_]+]] = arith.cmpi ult, %[[CKEND]], %c9
// CHECK-NEXT:        scf.if %[[PARTIAL]] {
// CHECK-COUNT-16:      vector.store %{{.+}}, %[[PARTIALS]][%{{.+}}] : memref<884736xf32>, vector<4xf32>
// CHECK:               nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// CHECK-NEXT:          %[[FIRST:[a-z0-9_]+]] = arith.cmpi eq, %{{.+}}, %c0
// CHECK-NEXT:          scf.if %[[FIRST]] {
// CHECK-NEXT:            llvm.fence syncscope("device") release
// CHECK:                 memref.extract_aligned_pointer_as_index %[[FLAGS]]
// CHECK:                 llvm.atomicrmw add %{{.+}}, %{{.+}} syncscope("device") monotonic : !llvm.ptr, i32
// CHECK-NEXT:          }
// ... and the share that ends the tile adds the partials of blocks
// first .. g - 1 (none where it starts the tile), each once its flag is
// raised (an acquire load by every thread); once all its threads have
// seen them (the warpgroup's barrier), its first thread sets them back to
// zero. Then the epilogue.
// CHECK-NEXT:        } else {
// CHECK:               %[[FROM:[a-z0-9_]+]] = arith.select %{{.+}}, %[[BLOCK:[a-z0-9_]+]], %{{.+}}
// CHECK-NEXT:          %{{.+}}:64 = scf.for %[[J:[a-z0-9_]+]] = %[[FROM]] to %[[BLOCK]] step %c1 iter_args
// CHECK:                 scf.while : () -> () {
// CHECK-NEXT:              %[[SEEN:[a-z0-9_]+]] = llvm.load %{{.+}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:              %[[PENDING:[a-z0-9_]+]] = arith.cmpi ne, %[[SEEN]], %c1_i32
// CHECK-NEXT:              scf.condition(%[[PENDING]])
// CHECK-COUNT-16:        vector.load %[[PARTIALS]][%{{.+}}] : memref<884736xf32>, vector<4xf32>
// CHECK:                 scf.yield
// CHECK:               %[[READ:[a-z0-9_]+]] = arith.cmpi ult, %[[FROM]], %[[BLOCK]]
// CHECK-NEXT:          scf.if %[[READ]] {
// CHECK:                 nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// CHECK-NEXT:            %[[CLEARER:[a-z0-9_]+]] = arith.cmpi eq, %{{.+}}, %c0
// CHECK-NEXT:            scf.if %[[CLEARER]] {
// CHECK-NEXT:              scf.for %[[R:[a-z0-9_]+]] = %[[FROM]] to %[[BLOCK]] step %c1 {
// CHECK:                     memref.extract_aligned_pointer_as_index %[[FLAGS]]
// CHECK:                     llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:               vector.maskedstore
// CHECK:           } {tessel.persistent_tiles = 54 : i64}
// CHECK:         gpu.dealloc {{ *}}%[[PARTIALS]]
// CHECK-NEXT:    gpu.dealloc {{ *}}%[[FLAGS]]

// PTX:     fence.acq_rel.gpu;
// PTX:     atom.add.u32
// PTX:     ld.acquire.gpu.b32
// PTX:     bar.sync {{.+}}, 128;
// PTX:     st.b32 [{{.+}}], 0;

// JSON:      "grid": [
// JSON-NEXT:   54,
// JSON:      "persistent": true,
// JSON:      "persistent": "2",
// JSON:      "workspaces": [
// JSON-NEXT:   {
// JSON-NEXT:     "element_type": "f32",
// JSON-NEXT:     "shape": [
// JSON-NEXT:       884736
// JSON-NEXT:     ]
// JSON-NEXT:   },
// JSON-NEXT:   {
// JSON-NEXT:     "element_type": "i32",
// JSON-NEXT:     "left_zeroed": true,
// JSON-NEXT:     "shape": [
// JSON-NEXT:       108
// JSON-NEXT:     ],
// JSON-NEXT:     "zeroed": true
// JSON-NEXT:   }
// JSON-NEXT: ]

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
