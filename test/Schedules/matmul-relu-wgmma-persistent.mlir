// Persistent kernels on the wgmma schedule (knob persistent): the launch
// gets one block per tile along x, and each block walks tiles block_id.x,
// + grid_dim.x, ... of the former grid, recomputing its tile's offsets and
// views (the block order of group_m included) from the tile's index. The
// tile loop carries the ring position of the tile's first K step, so that
// each tile's steps follow the previous tile's in the ring. The consumers
// release a tile's last stage as soon as its wgmma completed, so that the
// producer loads the next tile while the epilogue runs; each consumer
// warpgroup stages its rows 64 columns at a time in a buffer of its own
// after the ring, where those loads do not reach, synchronizing only its
// own threads. (Stream-K, persistent = 2: matmul-relu-wgmma-stream-k.mlir.)
// After outlining, tessel-persistent-launches drops the kernel's
// known_grid_size and marks its launches, which launch.json records.

// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=1" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=1" \
// RUN:   --tessel-pack-workgroup-memory --gpu-kernel-outlining --tessel-persistent-launches | FileCheck %s --check-prefix=OUTLINED
// RUN: rm -rf %t && tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=1" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=STORES < %t/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/matmul_relu.launch.json

// Persistent blocks read their operands with TMA: B's rows (300 f16, not
// 16-byte aligned) are copied first, as split-K does, where a non-persistent
// kernel with these knobs reads them in the kernel.
// RUN: sed 's/312/300/g' %s | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,persistent=1" \
// RUN:   | FileCheck %s --check-prefix=COPY
// COPY:      gpu.alloc {{ *}}() : memref<520x320xf16>
// COPY:      gpu.launch
// COPY:      nvgpu.tma.create.descriptor
// COPY:      gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %c6{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// COPY-NOT:  gpu.launch
// COPY:      } {tessel.persistent_tiles = 6 : i64}

// What a persistent kernel cannot serve is refused by the op, naming the
// knob (a copy of the schedule offers more values than the shipped ones).
// RUN: mkdir -p %t.any && sed 's/from options = \[0, 1, 2\]/from options = [0, 1, 2, 3]/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t.any/persistent.mlir
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%t.any/persistent.mlir knobs=tile_m=128,tile_n=128,stages=4,persistent=3" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VALUE
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,persistent=1,split_k=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPLIT
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=5,persistent=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SMEM
// RUN: sed -e 's/xf16>/xf32>/g' -e 's/truncf %r : f32 to f16/addf %r, %c0 : f32/' -e 's/%out: f16/%out: f32/' -e 's/yield %h : f16/yield %h : f32/' %s \
// RUN:   | not tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=2,persistent=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=X3
// The rule's model refuses the same points, so the tuner never compiles them.
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=5,persistent=1 defaults=rule" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SMEM

// VALUE: persistent.mlir:{{[0-9]+}}:{{[0-9]+}}: error: persistent = 3 must be 0, 1 or 2 (stream-K)
// SPLIT: error: persistent = 1 with split_k = 2: a persistent kernel does not split K across a cluster (use one of them)
// SMEM: error: the 128x256 tile with 5 stages and its own staged output tile (persistent) needs 265296 bytes of shared memory; an sm_90 block has at most 232448
// X3: error: persistent = 1 does not serve f32 inputs at FP32 accuracy (3xTF32: the producer splits each tile); use persistent = 0, or tessel.allow_tf32

// 2 x 3 tiles of 128x128 (M = 200, N = 312: partial in both; K = 520: 9
// steps, the last partial): 6 blocks along x.
// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %c6{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}, {{[^=]+}} = %c3{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// A 4-stage ring of 32 KiB stages, then a 64 x (64 + 8) staging buffer per
// consumer warpgroup.
// CHECK:           memref.alloc() : memref<150528xi8, #gpu.address_space<workgroup>>
// The producer's tile loop: tile t is block (t % 3, t / 3) of the former
// 3 x 2 grid, whose group_m order is recomputed from it.
// CHECK:           %[[FIRST:[a-z0-9_]+]] = gpu.block_id  x
// CHECK-NEXT:      %[[COUNT:[a-z0-9_]+]] = gpu.grid_dim  x
// The tile loop carries the ring position of the tile's first K step
// (stage 0, phase parity 0 at the first tile): each tile's steps follow
// the previous tile's in the ring, with no empty steps between them.
// CHECK-NEXT:      %[[FALSE:[a-z0-9_]+]] = arith.constant false
// CHECK-NEXT:      scf.for %[[T:[a-z0-9_]+]] = %[[FIRST]] to %c6 step %[[COUNT]] iter_args(%[[TSTAGE:[a-z0-9_]+]] = %c0, %[[TPHASE:[a-z0-9_]+]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:        %[[BX:[a-z0-9_]+]] = arith.remui %[[T]], %c3
// CHECK-NEXT:        %[[T3:[a-z0-9_]+]] = arith.divui %[[T]], %c3
// CHECK-NEXT:        %[[BY:[a-z0-9_]+]] = arith.remui %[[T3]], %c2
// CHECK-NEXT:        %[[ROW:[a-z0-9_]+]] = arith.muli %[[BY]], %c3
// CHECK-NEXT:        %[[LINEAR:[a-z0-9_]+]] = arith.addi %[[ROW]], %[[BX]]
// CHECK-NOT:         gpu.block_id
// The producer's K loop starts there; it waits for each stage to be empty
// in every round (in the block's first one for the previous phase of a
// fresh barrier, which has completed).
// CHECK:             %[[KLOOP:[a-z0-9_]+]]:2 = scf.for %{{.+}} = %c0 to %c9 step %c1 iter_args(%[[STAGE:[a-z0-9_]+]] = %[[TSTAGE]], %[[KPHASE:[a-z0-9_]+]] = %[[TPHASE]]) -> (index, i1) {
// CHECK-NOT:           arith.divui
// CHECK:               %[[PREV:[a-z0-9_]+]] = arith.xori %[[KPHASE]], %true
// CHECK:               nvgpu.mbarrier.try_wait.parity %[[EMPTY:[a-z0-9_]+]][%[[STAGE]]], %[[PREV]]
// CHECK:               nvgpu.mbarrier.arrive.expect_tx %[[FULL:[a-z0-9_]+]][%[[STAGE]]]
// CHECK:               nvgpu.tma.async.load
// CHECK:               scf.yield %{{.+}}, %{{.+}} : index, i1
// CHECK-NEXT:        }
// The next tile starts where this one's 9 steps ended.
// CHECK-NEXT:        scf.yield %[[KLOOP]]#0, %[[KLOOP]]#1 : index, i1
// CHECK-NEXT:      } {tessel.persistent_tiles = 6 : i64}
// The consumers' tile loop, with the same tiles.
// CHECK:         } else {
// CHECK:           gpu.block_id  x
// CHECK:           scf.for %[[CT:[a-z0-9_]+]] = %{{.*}} to %c6 step %{{.*}} iter_args(%[[CSTAGE:[a-z0-9_]+]] = %c0, %[[CPHASE:[a-z0-9_]+]] = %{{.*}}) -> (index, i1) {
// CHECK-NEXT:        arith.remui %[[CT]], %c3
// Its first K step, at the tile's first position, starts the accumulator:
// the first instruction ignores its input (scale-d = 0), so no register is
// zeroed in the tile loop (which would make ptxas serialize the wgmma).
// CHECK:             nvgpu.mbarrier.try_wait.parity %{{.*}}[%[[CSTAGE]]], %[[CPHASE]]
// CHECK:             llvm.mlir.poison
// CHECK-NEXT:        nvvm.wgmma.fence.aligned
// CHECK-NEXT:        nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-COUNT-3:     nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:             %[[CLOOP:[a-z0-9_]+]]:3 = scf.for %{{.*}} = %c1 to %c9 step %c1 iter_args
// CHECK:             } {tessel.wgmma_main_loop}
// The tile's last stage, the one before the K loop's final position, is
// released once its wgmma completed.
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:        %[[BACK:[a-z0-9_]+]] = arith.addi %[[CLOOP]]#1, %c3
// CHECK-NEXT:        %[[WRAP:[a-z0-9_]+]] = arith.cmpi uge, %[[BACK]], %c4
// CHECK-NEXT:        %[[BACK4:[a-z0-9_]+]] = arith.subi %[[BACK]], %c4
// CHECK-NEXT:        %[[SLAST:[a-z0-9_]+]] = arith.select %[[WRAP]], %[[BACK4]], %[[BACK]]
// CHECK-NEXT:        nvgpu.mbarrier.arrive %{{.*}}[%[[SLAST]]]
// Warpgroup y's buffer lies 131072 + 9216 y bytes past the ring's aligned
// start; it synchronizes its 128 threads with named barrier 2 + y.
// CHECK:             %[[WG:[a-z0-9_]+]] = arith.muli %[[Y:[a-z0-9_]+]], %c9216
// CHECK-NEXT:        %[[OFF:[a-z0-9_]+]] = arith.addi %c131072, %[[WG]]
// CHECK-NEXT:        %[[AT:[a-z0-9_]+]] = arith.addi %{{.*}}, %[[OFF]]
// CHECK-NEXT:        %[[BUF:[a-z0-9_]+]] = memref.view %{{.*}}[%[[AT]]][] : memref<150528xi8, #gpu.address_space<workgroup>> to memref<64x72xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[ID:[a-z0-9_]+]] = arith.addi %[[Y]], %c2
// CHECK-NEXT:        %[[ID32:[a-z0-9_]+]] = arith.index_cast %[[ID]] : index to i32
// Two 64-column subtiles: 16 pair stores, the barrier, the copy-out, the
// barrier, each.
// CHECK-COUNT-16:    vector.store {{.*}}, %[[BUF]]
// CHECK:             nvvm.barrier id = %[[ID32]] number_of_threads = %c128_i32
// CHECK:             vector.maskedstore
// CHECK:             nvvm.barrier id = %[[ID32]] number_of_threads = %c128_i32
// CHECK-COUNT-16:    vector.store {{.*}}, %[[BUF]]
// CHECK:             nvvm.barrier id = %[[ID32]] number_of_threads = %c128_i32
// CHECK:             vector.maskedstore
// CHECK:             nvvm.barrier id = %[[ID32]] number_of_threads = %c128_i32
// CHECK-NOT:         nvvm.barrier
// CHECK:             scf.yield %[[CLOOP]]#1, %[[CLOOP]]#2 : index, i1
// CHECK-NEXT:      } {tessel.persistent_tiles = 6 : i64}
// CHECK-NOT:     gpu.block_id

// OUTLINED:      gpu.launch_func @matmul_relu_kernel::@matmul_relu_kernel blocks in (%c6{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// OUTLINED-SAME:   {tessel.persistent}
// OUTLINED:      gpu.func @matmul_relu_kernel(
// OUTLINED-NOT:    known_grid_size
// OUTLINED-SAME:   known_block_size = array<i32: 128, 3, 1>
// OUTLINED-NOT:    known_grid_size

// Both tile loops read the grid's size at run time.
// PTX-COUNT-2: mov.u32 {{%r[0-9]+}}, %nctaid.x;

// Each thread stages its 32 converted pairs (two 64-column subtiles of 16
// pairs) with one 4-byte store each: the emitter states their alignment,
// which the ring's run-time padding hides from the analyses (LLVM split
// half of them into two 2-byte stores before).
// STORES-NOT:     st.shared.b16
// STORES-COUNT-32: st.shared.b32
// STORES-NOT:     st.shared.{{b16|b32}}

// JSON:      "grid": [
// JSON-NEXT:   6,
// JSON-NEXT:   1,
// JSON-NEXT:   1
// JSON-NEXT: ],
// JSON:      "persistent": true,
// JSON:      "knobs": {
// JSON:        "persistent": "1",

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
