// Partial tiles and misaligned rows in the wgmma schedule.
//
// RUN: rm -rf %t && mkdir -p %t && split-file %s %t
// RUN: tessel-opt %t/partial.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %t/partial.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/partial -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/partial/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=PROMO --input-file=%t/partial/matmul_relu.launch.json
// RUN: tessel-opt %t/partial.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=192,tile_n=192,stages=4,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/t192 -o /dev/null
// RUN: FileCheck %s --check-prefix=T192 --input-file=%t/t192/matmul_relu_kernel.ptx
// RUN: tessel-opt %t/partial.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=192,stages=4,group_m=8,split_k=1" \
// RUN:   | FileCheck %s --check-prefix=BOXES
// RUN: tessel-opt %t/unaligned.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/unaligned -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/unaligned/matmul_relu.launch.json
// RUN: FileCheck %s --check-prefix=WAIT --input-file=%t/unaligned/matmul_relu_kernel_0.ptx
// RUN: not grep griddepcontrol %t/unaligned/matmul_relu_kernel.ptx
// RUN: sed 's/^        cluster %%cluster swap_ab %%swap_ab$/        cluster %%cluster swap_ab %%swap_ab {copy_16b_rows_from = 4096 : i64}/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t/copy-from-4096.mlir
// RUN: tessel-opt %t/unaligned.mlir --tessel-apply-schedule="schedule=%t/copy-from-4096.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/copy-from-4096 -o /dev/null
// RUN: FileCheck %s --check-prefix=FROM4096 --input-file=%t/copy-from-4096/matmul_relu.launch.json
// RUN: tessel-opt %t/small-k.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=2,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a pointer-alignment=2" --tessel-export-kernels=dir=%t/small-k -o /dev/null
// RUN: FileCheck %s --check-prefix=READ --input-file=%t/small-k/matmul_relu.launch.json
// RUN: FileCheck %s --check-prefix=READ-PTX --implicit-check-not=ld.global.b16 --input-file=%t/small-k/matmul_relu_kernel.ptx
// RUN: sed 's/77x19/77x127/g; s/19x33/127x33/g' %t/small-k.mlir > %t/two-steps.mlir
// RUN: tessel-opt %t/two-steps.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=2,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/two-steps -o /dev/null
// RUN: FileCheck %s --check-prefix=TWO-STEPS --input-file=%t/two-steps/matmul_relu.launch.json
// RUN: sed 's/77x19/77x250/g; s/19x33/250x33/g' %t/small-k.mlir > %t/four-steps.mlir
// RUN: tessel-opt %t/four-steps.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=4,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/four-steps -o /dev/null
// RUN: FileCheck %s --check-prefix=FOUR-STEPS --input-file=%t/four-steps/matmul_relu.launch.json
// RUN: sed 's/77x19/77x257/g; s/19x33/257x33/g' %t/small-k.mlir > %t/five-steps.mlir
// RUN: tessel-opt %t/five-steps.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=4,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/five-steps -o /dev/null
// RUN: FileCheck %s --check-prefix=SMALL-GRID --input-file=%t/five-steps/matmul_relu.launch.json
// RUN: FileCheck %s --check-prefix=SMALL-GRID-PTX --implicit-check-not=cp.async.cg --input-file=%t/five-steps/matmul_relu_kernel.ptx
// RUN: sed 's/77x19/77x129/g; s/19x33/129x33/g' %t/small-k.mlir > %t/three-steps.mlir
// RUN: tessel-opt %t/three-steps.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=2,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/three-steps -o /dev/null
// RUN: FileCheck %s --check-prefix=SMALL-GRID --input-file=%t/three-steps/matmul_relu.launch.json
// RUN: sed 's/77x19/77x1025/g; s/19x33/1025x33/g' %t/small-k.mlir > %t/long-k.mlir
// RUN: tessel-opt %t/long-k.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=4,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/long-k -o /dev/null
// RUN: FileCheck %s --check-prefix=COPIED --input-file=%t/long-k/matmul_relu.launch.json
// RUN: sed 's/77x19/7332x1621/g; s/19x33/1621x16/g; s/77x33/7332x16/g' %t/small-k.mlir > %t/staged.mlir
// RUN: tessel-opt %t/staged.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=4,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/staged -o /dev/null
// RUN: FileCheck %s --check-prefix=STAGED --input-file=%t/staged/matmul_relu.launch.json
// RUN: FileCheck %s --check-prefix=STAGED-PTX --input-file=%t/staged/matmul_relu_kernel.ptx
// RUN: tessel-opt %t/staged.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=4,group_m=1,split_k=2" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/staged-split -o /dev/null
// RUN: FileCheck %s --check-prefix=STAGED-SPLIT --input-file=%t/staged-split/matmul_relu.launch.json
// RUN: sed 's/77x19/2000x1000/g; s/19x33/1000x4096/g; s/77x33/2000x4096/g' %t/small-k.mlir > %t/wide-a.mlir
// RUN: tessel-opt %t/wide-a.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=4,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/wide-a -o /dev/null
// RUN: FileCheck %s --check-prefix=IN-PLACE --input-file=%t/wide-a/matmul_relu.launch.json
// RUN: sed 's/77x19/1000x1024/g; s/19x33/1024x3000/g; s/77x33/1000x3000/g' %t/small-k.mlir > %t/few-reads-b.mlir
// RUN: tessel-opt %t/few-reads-b.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=4,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/few-reads-b -o /dev/null
// RUN: FileCheck %s --check-prefix=IN-PLACE --input-file=%t/few-reads-b/matmul_relu.launch.json
// RUN: sed 's/^        cluster %%cluster swap_ab %%swap_ab$/        cluster %%cluster swap_ab %%swap_ab {read_misaligned_rows_max_k = 0 : i64}/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t/never-read.mlir
// RUN: tessel-opt %t/small-k.mlir --tessel-apply-schedule="schedule=%t/never-read.mlir knobs=tile_m=64,tile_n=64,stages=2,group_m=1,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/never-read -o /dev/null
// RUN: FileCheck %s --check-prefix=NEVER --input-file=%t/never-read/matmul_relu.launch.json
// RUN: sed 's/77x19/2804x66/g; s/19x33/66x16229/g; s/77x33/2804x16229/g' %t/small-k.mlir > %t/many-reads.mlir
// RUN: tessel-opt %t/many-reads.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=128,stages=2,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/many-reads -o /dev/null
// RUN: FileCheck %s --check-prefix=MANY-READS --input-file=%t/many-reads/matmul_relu.launch.json
// RUN: sed 's/77x19/1172x33/g; s/19x33/33x4043/g; s/77x33/1172x4043/g' %t/small-k.mlir > %t/fewer-reads.mlir
// RUN: tessel-opt %t/fewer-reads.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=128,stages=2,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/fewer-reads -o /dev/null
// RUN: FileCheck %s --check-prefix=FEWER-READS --input-file=%t/fewer-reads/matmul_relu.launch.json
// RUN: sed 's/77x19/1381x33/g; s/19x33/33x5381/g; s/77x33/1381x5381/g' %t/small-k.mlir > %t/one-step.mlir
// RUN: tessel-opt %t/one-step.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=128,stages=2,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/one-step -o /dev/null
// RUN: FileCheck %s --check-prefix=FEWER-READS --input-file=%t/one-step/matmul_relu.launch.json

// 1000 = 7 x 128 + 104 rows and columns, K = 1000 = 15 x 64 + 40: the
// last block row loads A's 104 rows alone through a map of that box (and
// expects 24 x 128 bytes less); TMA zero-fills the rest of what lies past
// the matrices (B's [k, n] boxes past N, the last K step's columns); the K
// loop runs ceil(1000 / 64) = 16 steps, and each 16-byte chunk of the
// output is stored whole when it lies inside the matrix, element by
// element under a mask otherwise.

// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         nvgpu.tma.create.descriptor {{.+}} box[%c128, %c64]
// CHECK:         nvgpu.tma.create.descriptor {{.+}} box[%c104, %c64]
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}} = %c8{{.*}}, {{.+}} = %c1{{.*}}) threads
// CHECK:           scf.for %{{.+}} = %c0{{.*}} to %c16{{.*}} step %c1
// CHECK:             %[[LEFT:.+]] = arith.subi %c1000{{.*}}, %[[M0:.+]] : index
// CHECK:             %[[EDGE:.+]] = arith.cmpi eq, %[[LEFT]], %c104
// CHECK:             %[[LESS:.+]] = arith.select %[[EDGE]], %c3072, %c0
// CHECK:             %[[TX:.+]] = arith.subi %c32768, %[[LESS]]
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %{{.+}}, %[[TX]]
// CHECK:             scf.if %[[EDGE]] {
// CHECK:               nvgpu.tma.async.load {{.+}} -> memref<104x64xf16
// CHECK:             } else {
// CHECK:               nvgpu.tma.async.load {{.+}} -> memref<128x64xf16
// CHECK:           scf.for %{{.+}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// CHECK:             nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>
// CHECK:           %[[ROWS:.+]] = memref.dim %[[OUT:.+]], %c0
// CHECK:           %[[COLS:.+]] = memref.dim %[[OUT]], %c1
// CHECK:           scf.if
// CHECK:             vector.store %{{.+}}, %[[OUT]]
// CHECK:           } else {
// CHECK:             vector.create_mask
// CHECK:             vector.maskedstore %[[OUT]]

// PTX: fence.mbarrier_init.release.cluster;
// PTX: fence.proxy.async.shared::cta;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// The full chunks: 16-byte stores; the edge ones: predicated 2-byte stores.
// PTX-DAG: st.global.v4.b32
// PTX-DAG: st.global.b16

// A's and B's rows (2000 bytes) start on 16- but not 32-byte boundaries:
// TMA promotes their L2 misses to 128 bytes, not 256 (the copies' aligned
// rows below keep 256).
// 1000 = 7 x 128 + 104: the last block row loads A's 104 rows through a
// third map of that box, not a 128-row box with 24 zero-filled rows.
// PROMO:       "argument": 0,
// PROMO-NEXT:  "box": [
// PROMO-NEXT:    128,
// PROMO:       "kind": "tensor_map"
// PROMO-NEXT:  "l2_promotion": "128b"
// PROMO:       "kind": "tensor_map"
// PROMO-NEXT:  "l2_promotion": "128b"
// PROMO:       "argument": 0,
// PROMO-NEXT:  "box": [
// PROMO-NEXT:    104,
// PROMO-NEXT:    64
// PROMO:       "kind": "tensor_map"
// PROMO-NEXT:  "l2_promotion": "128b"
// PROMO-NOT:   "l2_promotion"

// B stored [k, n] in 64-column boxes: the last column of 192-wide tiles
// holds 1000 - 5 x 192 = 40 columns, so its boxes 1 and 2 lie wholly past
// N. They are not loaded (nor their 8 KiB expected) where the tile's
// origin puts them past column 1000; box 0 always is.
// BOXES:       %[[PAST1:.+]] = arith.cmpi uge, %{{.+}}, %c1000
// BOXES:       %[[PAST2:.+]] = arith.cmpi uge, %{{.+}}, %c1000
// BOXES:       arith.select %[[PAST1]], %c8192, %c0
// BOXES:       arith.select %[[PAST2]], %c8192, %c0
// BOXES:       nvgpu.mbarrier.arrive.expect_tx
// BOXES:       nvgpu.tma.async.load {{.+}} -> memref<64x64xf16
// BOXES-NEXT:  scf.if %[[PAST1]] {
// BOXES-NEXT:  } else {
// BOXES:         nvgpu.tma.async.load {{.+}} -> memref<64x64xf16
// BOXES:       scf.if %[[PAST2]] {
// BOXES-NEXT:  } else {
// BOXES:         nvgpu.tma.async.load {{.+}} -> memref<64x64xf16

// 192x192 tiles: three consumer warpgroups and the producer (128 x 4
// threads), each consumer one m64n192 wgmma per k16 step; 1000 = 5 x 192
// + 40 rows and columns.
// T192: .maxntid 128, 4, 1
// T192: wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16

// 2000x3000x1500 f16: A's 1500-element rows (3000 bytes) do not start on
// 16-byte boundaries, which TMA needs. A is first copied by a kernel of its
// own into a workspace with 1536-element (3072-byte) rows, and the tensor
// map describes the copy's leading 2000x1500 part. B's 3000-element rows
// (6000 bytes) start on 16- but not 32-byte boundaries, which TMA reads
// more slowly; each tile of B is read ceil(2000 / 128) = 16 times, at least
// copy_16b_rows_from (12), and a copy into 3008-element rows repays. Both
// copies are one kernel.
// JSON:      "kind": "buffer"
// JSON:      "workspace": 0
// JSON:      "kind": "tensor_map"
// JSON-NEXT: "l2_promotion": "256b"
// JSON-NEXT: "oob_fill": "zero"
// JSON-NEXT: "shape": [
// JSON-NEXT:   2000,
// JSON-NEXT:   1500
// JSON-NEXT: ],
// JSON-NEXT: "swizzle": "128b",
// JSON-NEXT: "workspace": 0
// JSON:      "pointer_alignment": 16,
// JSON-NEXT: "waits_for_previous": true
// JSON:      "workspaces": [
// JSON-NEXT:   {
// JSON-NEXT:     "element_type": "f16",
// JSON-NEXT:     "shape": [
// JSON-NEXT:       2000,
// JSON-NEXT:       1536
// JSON:            "shape": [
// JSON-NEXT:       1500,
// JSON-NEXT:       3008

// The matmul waits for the copy on the GPU before anything else
// (tessel-overlap-launches), so the runtime launches it with programmatic
// stream serialization; the copy, launched first, waits for nothing.
// WAIT:      .entry matmul_relu_kernel(
// WAIT-NOT:  {{(ld|st|cp[.]async)[.](global|shared)}}
// WAIT:      griddepcontrol.wait;

// Rows on 16- but not 32-byte boundaries that TMA reads in place, one
// launch, no workspace: a K-major A however wide N is (2000x4096x1000: A's
// 2000-byte rows), and an N-major B whose tiles are read fewer than
// copy_16b_rows_from (12) times (1000x3000x1024: B's 6000-byte rows,
// ceil(1000 / 128) = 8 reads). (2000x3000x1500 above copies its B: 16
// reads.)
// IN-PLACE-NOT:  "workspace
// IN-PLACE:      "l2_promotion": "128b"
// IN-PLACE-NOT:  "workspace

// With copy_16b_rows_from = 4096 reads, B is read where it is.
// FROM4096:      "workspaces": [
// FROM4096-NEXT:   {
// FROM4096-NEXT:     "element_type": "f16",
// FROM4096-NEXT:     "shape": [
// FROM4096-NEXT:       2000,
// FROM4096-NEXT:       1536
// FROM4096-NEXT:     ]
// FROM4096-NEXT:   }
// FROM4096-NEXT: ]

// 77x33x19 f16: neither A's 19-element rows nor B's 33-element rows start
// on 16-byte boundaries, and K fits two 64-deep steps
// (read_misaligned_rows_max_k, default 128): the producer warpgroup reads
// both itself. One launch, no workspace, no tensor map: the kernel takes
// A, B and C as plain buffers.
// READ:      "launches": [
// READ-NEXT:   {
// READ:          "params": [
// READ-NEXT:       {
// READ-NEXT:         "argument": 2,
// READ-NEXT:         "kind": "buffer"
// READ-NEXT:       },
// READ-NEXT:       {
// READ-NEXT:         "argument": 0,
// READ-NEXT:         "kind": "buffer"
// READ-NEXT:       },
// READ-NEXT:       {
// READ-NEXT:         "argument": 1,
// READ-NEXT:         "kind": "buffer"
// READ-NEXT:       }
// READ-NEXT:     ],
// READ-NOT:  "tensor_map"
// READ-NOT:  "workspace
// Each producer thread reads the two aligned 16-byte granules around each
// of its chunks (no element loads), shifts the chunk out of them, stores it
// whole into the swizzled ring, fences its stores for wgmma's async proxy
// and arrives on the stage's full barrier (no TMA, so no transaction
// count). The kernel declares the 16-byte alignment its loads assume of A
// and B (compiled here with pointer-alignment=2, which C keeps).
// READ-PTX:     .param .u64 .ptr .align 2 matmul_relu_kernel_param_0,
// READ-PTX:     .param .u64 .ptr .align 16 matmul_relu_kernel_param_1,
// READ-PTX:     .param .u64 .ptr .align 16 matmul_relu_kernel_param_2
// READ-PTX-DAG: ld.global.v4.b32
// READ-PTX-DAG: ld.global.v4.b32 {{.*}}+16]
// READ-PTX-DAG: shf.r.wrap.b32
// READ-PTX-DAG: st.shared.v4.b32
// READ-PTX-DAG: fence.proxy.async.shared::cta;
// READ-PTX-DAG: mbarrier.arrive.shared.b64
// READ-PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// READ-PTX-NOT: cp.async.bulk.tensor
// READ-PTX-NOT: mbarrier.arrive.expect_tx

// Producer warpgroups take K steps in turn, each waiting for its stage's
// loads; by default the operands are read when the producers can hold all
// of the block's K steps in flight (one warpgroup per step, up to four, as
// registers and stages allow). K = 127 (two steps, two stages) gets two
// producers and is read; K = 250 (four steps, four stages) gets four,
// (128, 1 + 4) threads. With more steps than producers, a grid of fewer
// than 64 blocks reads through staging slots when K has at most 16 steps
// (the copy would mostly add a launch): K = 129 (three steps, two stages,
// two producers) and K = 257 (five steps) in 2 blocks take one producer
// warpgroup with TMA staging, (128, 1 + 1) threads and no workspace. K = 1025
// (17 steps) is copied first.
// TWO-STEPS-NOT: "workspaces"
// TWO-STEPS-NOT: "tensor_map"
// FOUR-STEPS:      "block": [
// FOUR-STEPS-NEXT:   128,
// FOUR-STEPS-NEXT:   5,
// FOUR-STEPS-NEXT:   1
// FOUR-STEPS-NOT:  "workspaces"
// SMALL-GRID:      "block": [
// SMALL-GRID-NEXT:   128,
// SMALL-GRID-NEXT:   2,
// SMALL-GRID-NEXT:   1
// SMALL-GRID-NOT:  "workspaces"
// SMALL-GRID-PTX-DAG: cp.async.bulk.tensor.2d
// SMALL-GRID-PTX-DAG: mbarrier.try_wait.parity
// COPIED:      "workspaces": [
// COPIED-NEXT:   {
// COPIED-NEXT:     "element_type": "f16",
// COPIED-NEXT:     "shape": [
// COPIED-NEXT:       77,

// 7332x16x1621: 26 K steps, more than producers can hold, but the matmul
// does 16 flops per byte of A (whose 1621-element rows are misaligned) in
// 115 blocks: bound by memory, where copying A would move it twice more.
// One producer warpgroup reads A through staging slots that TMA fills four
// K steps ahead (four slots of 9 KiB after the 64 KiB ring): A's rows p,
// p + 8, ... lie 8 x 1621 elements apart, a multiple of 16 bytes, so each
// row phase p has a tensor map of its own, from the 16-byte boundary at or
// before row p's start (phase 0: offset 0; phase 4, whose row starts 4
// elements past one: offset 6480, a row of 1625 elements), boxes of 8 rows
// of 72 elements, no swizzle. Warp w loads phases w and w + 4 and realigns
// them by their constant shifts (an odd one: a funnel shift by 16 bits)
// into the swizzled ring; no cp.async. B's aligned rows still come by TMA.
// STAGED:          "block": [
// STAGED-NEXT:       128,
// STAGED-NEXT:       2,
// STAGED-NEXT:       1
// STAGED:          "dynamic_shared_memory": 103552,
// STAGED:          "argument": 0,
// STAGED-NEXT:       "box": [
// STAGED-NEXT:         8,
// STAGED-NEXT:         72
// STAGED-NEXT:       ],
// STAGED:            "offset": 0,
// STAGED-NEXT:       "oob_fill": "zero",
// STAGED-NEXT:       "shape": [
// STAGED-NEXT:         917,
// STAGED-NEXT:         1621
// STAGED-NEXT:       ],
// STAGED-NEXT:       "strides": [
// STAGED-NEXT:         12968,
// STAGED-NEXT:         1
// STAGED-NEXT:       ],
// STAGED-NEXT:       "swizzle": "none"
// STAGED:          "offset": 6480,
// STAGED-NEXT:       "oob_fill": "zero",
// STAGED-NEXT:       "shape": [
// STAGED-NEXT:         916,
// STAGED-NEXT:         1625
// STAGED-NOT:      "workspaces"
// STAGED-PTX-NOT:  cp.async.cg
// STAGED-PTX-DAG:  mbarrier.arrive.expect_tx
// STAGED-PTX-DAG:  cp.async.bulk.tensor
// STAGED-PTX-DAG:  mbarrier.try_wait.parity
// STAGED-PTX-DAG:  ld.shared.v4.b32
// STAGED-PTX-DAG:  shf.l.wrap.b32 {{.+}}, 16;
// STAGED-PTX-DAG:  st.shared.v4.b32
// STAGED-PTX-DAG:  fence.proxy.async.shared::cta;
// STAGED-PTX-DAG:  mbarrier.arrive.shared.b64
// STAGED-PTX-DAG:  bar.warp.sync

// Split in two along K (clusters of two blocks), the blocks read A through
// the phase maps too, each its half of the K steps: no workspace.
// STAGED-SPLIT:      "cluster": [
// STAGED-SPLIT-NEXT:   1,
// STAGED-SPLIT-NEXT:   1,
// STAGED-SPLIT-NEXT:   2
// STAGED-SPLIT:      "strides": [
// STAGED-SPLIT-NEXT:   12968,
// STAGED-SPLIT-NOT:  "workspaces"

// With read_misaligned_rows_max_k = 0, both are copied first, as for a
// longer K.
// NEVER:      "workspaces": [
// NEVER-NEXT:   {
// NEVER-NEXT:     "element_type": "f16",
// NEVER-NEXT:     "shape": [
// NEVER-NEXT:       77,
// NEVER-NEXT:       64

// The producers read misaligned rows only while the blocks read at most
// 9 MB of them in all (kRegisterReadMaxBytes: each operand's bytes times
// the blocks that read each of its tiles); beyond, each chunk's two
// granule loads cost more than the copy (H200, 269 pairs of the same
// knobs: docs/any-shape.md, "Several producers"). 2804x16229x66 in 64x128
// blocks reads A 127 times and B 44 times (about 71 MB): both are copied
// (a copy launch first), and the kernel has one producer warpgroup.
// 1172x4043x33 reads about 7.5 MB: read, no workspace. A single K step is
// read up to 16 MB (kRegisterReadOneStepMaxBytes): 1381x5381x33 reads
// about 11.7 MB.
// MANY-READS:      "binary": "matmul_relu_kernel_0",
// MANY-READS-NEXT: "block": [
// MANY-READS-NEXT:   128,
// MANY-READS-NEXT:   2,
// MANY-READS-NEXT:   1
// MANY-READS:      "workspaces": [
// MANY-READS-NEXT:   {
// MANY-READS-NEXT:     "element_type": "f16",
// MANY-READS-NEXT:     "shape": [
// MANY-READS-NEXT:       2804,
// MANY-READS-NEXT:       128
// MANY-READS-NEXT:     ]
// MANY-READS-NEXT:   },
// MANY-READS-NEXT:   {
// MANY-READS-NEXT:     "element_type": "f16",
// MANY-READS-NEXT:     "shape": [
// MANY-READS-NEXT:       66,
// MANY-READS-NEXT:       16256
// FEWER-READS:     "launches": [
// FEWER-READS-NOT: "workspaces"
// FEWER-READS-NOT: "tensor_map"

//--- partial.mlir
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

//--- unaligned.mlir
// C = relu(A * B): A is 2000x1500, B is 1500x3000, row-major, f16 inputs,
// f32 accumulation, f16 output written into C.
func.func @matmul_relu(%A: tensor<2000x1500xf16>, %B: tensor<1500x3000xf16>,
                       %C: tensor<2000x3000xf16>) -> tensor<2000x3000xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2000x3000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<2000x3000xf32>) -> tensor<2000x3000xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<2000x1500xf16>, tensor<1500x3000xf16>)
                      outs(%acc : tensor<2000x3000xf32>) -> tensor<2000x3000xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<2000x3000xf32>) outs(%C : tensor<2000x3000xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2000x3000xf16>
  return %relu : tensor<2000x3000xf16>
}

//--- small-k.mlir
// C = relu(A * B): A is 77x19, B is 19x33, row-major, f16 inputs, f32
// accumulation, f16 output written into C.
func.func @matmul_relu(%A: tensor<77x19xf16>, %B: tensor<19x33xf16>,
                       %C: tensor<77x33xf16>) -> tensor<77x33xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<77x33xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<77x33xf32>) -> tensor<77x33xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<77x19xf16>, tensor<19x33xf16>)
                      outs(%acc : tensor<77x33xf32>) -> tensor<77x33xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<77x33xf32>) outs(%C : tensor<77x33xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<77x33xf16>
  return %relu : tensor<77x33xf16>
}
