// Swap-AB on the wgmma schedule (knob swap_ab): the blocks compute the
// output's tiles transposed, C^T = B^T A^T. B's tile is wgmma's A operand
// (a weight [n, k] is K-major there, 64 output columns per consumer
// warpgroup) and A's tile its B operand (tile_m output rows along wgmma's
// N). The epilogue sees each pair of accumulators as two rows of one
// output column: a bias over columns is one scalar per pair, and the
// pair is staged transposed (two 16-bit stores) so that the tile leaves in
// the output's rows, 16 bytes at a time. (Checked on an H100:
// knob-sweep-swap-ab-gpu.test; docs/wgmma.md, "Swap-AB".)
//
// A Linear layer, x [200, 72] and W [136, 72], bias + ReLU, f16: 64x128
// tiles swapped are m64n64 wgmma instructions, 2 consumer warpgroups.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=128,stages=4,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=1" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=128,stages=4,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/k -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/k/linear_kernel.ptx
// RUN: FileCheck %s --check-prefix=MAPS --input-file=%t/k/linear.launch.json

// CHECK-LABEL: func.func @linear(
// CHECK:         threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}, {{[^=]+}} = %c3{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// Both operands K-major: no transpose flag.
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// The bias (over the output's columns: the computed tile's rows) is one
// element per row a thread holds.
// CHECK:         memref.load {{.*}} : memref<?xf16, strided<[1], offset: ?>>
// The staged tile is the output's: 64 rows of 128 + 8 columns, written
// one element at a time.
// CHECK:         memref.store {{.*}} : memref<64x136xf16, #gpu.address_space<workgroup>>
// CHECK:         vector.store {{.*}} : memref<?x?xf16, strided<[136, 1], offset: ?>>, vector<8xf16>

// PTX-NOT: wgmma.mma_async{{.*}}, p, 1,  1, 1,
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1,  1, 0,  0;
// PTX-NOT: wgmma.mma_async{{.*}}, p, 1,  1, 1,
// 16 pairs per thread, 32 stores.
// PTX-COUNT-32: st.shared.b16

// The weight's tensor map (argument 1) has the 128-row box of wgmma's A,
// x's (argument 0) the 64-row box of its B.
// MAPS:      "argument": 1,
// MAPS-NEXT: "box": [
// MAPS-NEXT:   128,
// MAPS-NEXT:   64
// MAPS:      "argument": 0,
// MAPS-NEXT: "box": [
// MAPS-NEXT:   64,
// MAPS-NEXT:   64
// MAPS:      "swap_ab": "1",

// Persistent blocks stage each warpgroup's 64 output columns 64 rows at a
// time (64 x 72 elements); split-K blocks store their share of the
// computed tile's columns, which are output rows; clusters multicast as
// without the swap. A matmul with B [k, n] reads it as an MN-major A
// (imm-trans-a).
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1,persistent=1,cluster=1,swap_ab=1" \
// RUN:   | FileCheck %s --check-prefix=PERSISTENT
// PERSISTENT: } {tessel.persistent_tiles = 4 : i64}
// PERSISTENT: memref.store {{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>>
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=128,stages=4,group_m=8,split_k=2,persistent=0,cluster=1,swap_ab=1" \
// RUN:   | FileCheck %s --check-prefix=SPLIT
// SPLIT: gpu.cluster_block_id z
// SPLIT: nvvm.mapa
// SPLIT: memref.store {{.*}} : memref<64x136xf16, #gpu.address_space<workgroup>>
// RUN: tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=160,tile_n=128,stages=4,group_m=8,split_k=1,persistent=0,cluster=2,swap_ab=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/c -o /dev/null
// RUN: FileCheck %s --check-prefix=CLUSTER --input-file=%t/c/matmul_relu_kernel.ptx
// CLUSTER: .reqnctapercluster
// CLUSTER: wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16 {{.*}}, p, 1,  1, 1,  1;
// CLUSTER: multicast::cluster
// The rule's wave-filling points: 96 rows of M along wgmma's N, 128 weight
// rows (two consumer warpgroups), 8 stages; 104 and 112 rows (cuBLASLt's
// at 304-336 rows) with 6, computed as 104 and 112 (whole 8-column groups
// of wgmma's N), not 128; in a cluster of two, whose blocks each load half
// of a shared tile's rows, 104 is computed as 112. Tiles between the
// options (120) are refused, naming the knob.
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=96,tile_n=128,stages=8,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/w -o /dev/null
// RUN: FileCheck %s --check-prefix=WAVE --input-file=%t/w/linear_kernel.ptx
// WAVE: .maxntid 128, 3, 1
// WAVE: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16
// WAVE-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=104,tile_n=128,stages=6,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/w104 -o /dev/null
// RUN: FileCheck %s --check-prefix=WAVE-104 --input-file=%t/w104/linear_kernel.ptx
// WAVE-104: .maxntid 128, 3, 1
// WAVE-104: wgmma.mma_async.sync.aligned.m64n104k16.f32.f16.f16
// WAVE-104-NOT: wgmma.mma_async.sync.aligned.m64n{{112|128}}k16
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=112,tile_n=128,stages=6,group_m=8,split_k=1,persistent=0,cluster=1,swap_ab=1" \
// RUN:   | FileCheck %s --check-prefix=WAVE-112
// WAVE-112: nvgpu.tma.create.descriptor %{{.+}} box[%c112{{[_0-9]*}}, %c64{{[_0-9]*}}]
// WAVE-112: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 112, k = 16>
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=104,tile_n=128,stages=6,group_m=8,split_k=1,persistent=0,cluster=2,swap_ab=1" \
// RUN:   | FileCheck %s --check-prefix=WAVE-CLUSTER
// WAVE-CLUSTER: nvgpu.tma.create.descriptor %{{.+}} box[%c56{{[_0-9]*}}, %c64{{[_0-9]*}}]
// WAVE-CLUSTER: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 112, k = 16>
// RUN: not tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=120,swap_ab=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TILE-120
// TILE-120: error: value 120 is not among the options of knob 'tile_m': [64, 96, 104, 112, 128, 160, 192, 256]

// What swap_ab cannot be is refused, naming the knob (a copy of the
// schedule offers more values); a tile the swapped block cannot hold says
// that the roles traded.
// RUN: sed 's/from options = \[0, 1\] -> !transform.param<i64>/from options = [0, 1, 2] -> !transform.param<i64>/' \
// RUN:   %schedules/matmul_relu_wgmma.mlir > %t/swap.mlir
// RUN: not tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%t/swap.mlir knobs=tile_m=64,tile_n=128,stages=4,swap_ab=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VALUE
// VALUE: error: swap_ab = 2 must be 0 or 1
// RUN: not tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=256,tile_n=256,stages=16,swap_ab=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ROLES
// ROLES: error: {{.*}}(swap_ab = 1: the block computes the transposed tile, whose M is the output's columns and N its rows)

// The rule swaps only 16-bit matmuls with a B of 32 MB or more
// (docs/knob-rule.md, "Medium-M layers") of 65-256 rows whose last 64-row
// warpgroup would be at most half full (M % 64 in 1..32), or of 257-320
// rows: this small layer keeps its unswapped kernel; 160 rows of
// 8192x8192 take two rows of 96-row blocks 128 weight rows wide, which
// fill one wave (128 blocks; "Swapped blocks that fill one wave"), 96 rows
// all their rows in one block (wgmma's N = 96), 128 rows (whole
// warpgroups) and 352 are not swapped, and 320 rows
// take two rows of 160-row blocks, grouped by 8 so that the blocks reading
// one weight tile run together; 320x4096x4096 takes 64-column blocks (128
// of them, one wave), 320x11008x11008 192-column ones (116, one wave).
// RUN: tessel-opt %S/../Runtime/Inputs/linear_bias_relu_200x136x72_f16_nk.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir defaults=rule" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/r -o /dev/null
// RUN: FileCheck %s --check-prefix=RULE --input-file=%t/r/linear.launch.json
// RULE: "swap_ab": "0",
// RUN: for m in 160 96 128 352 320; do \
// RUN:   sed -e "s/128x4096/${m}x8192/g" -e 's/4096x4096/8192x8192/g' %examples/matmul_relu_128x4096x4096_f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir"; done \
// RUN:   | FileCheck %s --check-prefix=RULE-ROWS
// RULE-ROWS: knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 96 : i64, tile_n = 128 : i64}
// RULE-ROWS: knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 96 : i64, tile_n = 64 : i64}
// RULE-ROWS: knobs = {{{.*}} swap_ab = 0 : i64, tile_m = 128 : i64
// RULE-ROWS: knobs = {{{.*}} swap_ab = 0 : i64, tile_m = 128 : i64
// RULE-ROWS: knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 1 : i64, tile_m = 160 : i64, tile_n = 128 : i64}
// RUN: for n in 4096 11008; do \
// RUN:   sed -e "s/128x4096/320x${n}/g" -e "s/4096x4096/${n}x${n}/g" %examples/matmul_relu_128x4096x4096_f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir"; done \
// RUN:   | FileCheck %s --check-prefix=RULE-COLS
// RULE-COLS: knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 160 : i64, tile_n = 64 : i64}
// RULE-COLS: knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 5 : i64, swap_ab = 1 : i64, tile_m = 160 : i64, tile_n = 192 : i64}
