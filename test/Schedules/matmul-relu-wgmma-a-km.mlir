// An A stored [k, m] (MN-major) on the wgmma schedule: TMA loads A's tile
// in 64-column boxes along M (one per consumer warpgroup), and wgmma reads
// it with its transpose flag (imm-trans-a = 1; B [k, n] sets imm-trans-b).
// Where TMA cannot read A so (f32 for TF32 wgmma, M * 2 bytes not a
// multiple of 16) a kernel copies it transposed first and wgmma reads it
// K-major. Clusters of two multicast halves of its boxes along K.
// mma.sync stages A's tile [k, m] and reads it with ldmatrix.trans.
// (Checked on an H100: run-a-km-gpu.test, knob-sweep-a-km-gpu.test;
// docs/wgmma.md.)
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1,persistent=0,cluster=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/k -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/k/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=MAPS --input-file=%t/k/matmul_relu.launch.json
// Four m64n128k16 instructions per K step, A and B transposed (scale-d,
// scale-a, scale-b, trans-a, trans-b).
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1,  1, 1,  1;
// PTX-NOT: wgmma.mma_async{{.*}}, p, 1,  1, 0,
// A's tensor map: 64 K rows x 64 M columns per box (argument 0).
// MAPS: "argument": 0,
// MAPS-NEXT: "box": [
// MAPS-NEXT: 64,
// MAPS-NEXT: 64
// MAPS: "lhs_transposed": true

// Split-K and persistent blocks take it too.
// RUN: tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=2,group_m=8,split_k=2,persistent=0,cluster=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/split -o /dev/null
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/split/matmul_relu_kernel.ptx
// SPLIT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1,  1, 1,  1;

// The rule's knobs (no cluster for this layout).
// RUN: tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" | FileCheck %s --check-prefix=RULE
// RULE: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64
// At 1000^3 A's rows of 2000 bytes sit on 16- but not 32-byte boundaries:
// the rule pairs blocks along a row in clusters, as for such an A [m, k]
// (1.05-1.13x at 1000^3 on an H100).
// RUN: sed -e 's/136x200/1000x1000/g' -e 's/136x304/1000x1000/g' -e 's/200x304/1000x1000/g' \
// RUN:   %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" | FileCheck %s --check-prefix=RULE1000
// RULE1000: knobs = {cluster = 2 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}

// Clusters of two along x share A's tile: each block loads half of each
// 64-column box's K rows (32 x 64) and multicasts it to both.
// RUN: tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=4,group_m=1,split_k=1,persistent=0,cluster=2" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/cluster -o /dev/null
// RUN: FileCheck %s --check-prefix=CLUSTER --input-file=%t/cluster/matmul_relu.launch.json
// RUN: FileCheck %s --check-prefix=MULTICAST --input-file=%t/cluster/matmul_relu_kernel.ptx
// CLUSTER:      "cluster": [
// CLUSTER-NEXT:   2,
// CLUSTER:      "argument": 0,
// CLUSTER:      "argument": 0,
// CLUSTER-NEXT: "box": [
// CLUSTER-NEXT:   32,
// CLUSTER-NEXT:   64
// MULTICAST: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster

// RUN: sed -e 's/136x200xf16/136x201xf16/g' -e 's/200x304xf/201x304xf/g' \
// RUN:   %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir > %t/misaligned.mlir
// RUN: tessel-opt %t/misaligned.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=4,group_m=8,split_k=1,persistent=0,cluster=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/misaligned -o /dev/null
// RUN: FileCheck %s --check-prefix=MISALIGNED --input-file=%t/misaligned/matmul_relu.launch.json
// RUN: FileCheck %s --check-prefix=KMAJOR --input-file=%t/misaligned/matmul_relu_kernel_0.ptx
// A's transposed copy, [201, 136], is the first launch's workspace and the
// wgmma kernel's first tensor map: K-major boxes of 64 rows.
// MISALIGNED:      "kind": "buffer",
// MISALIGNED-NEXT: "workspace": 0
// MISALIGNED:      "box": [
// MISALIGNED-NEXT:   64,
// MISALIGNED-NEXT:   64
// MISALIGNED:      "shape": [
// MISALIGNED-NEXT:   201,
// MISALIGNED-NEXT:   136
// MISALIGNED:      "workspace": 0
// KMAJOR-NOT: wgmma.mma_async{{.*}}, p, 1,  1, 1,
// KMAJOR: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1,  1, 0,  1;
// KMAJOR-NOT: wgmma.mma_async{{.*}}, p, 1,  1, 1,

// f32 (3xTF32): A and B both copied transposed (three kernels).
// RUN: sed -e 's/xf16>/xf32>/g' -e 's/%out: f16/%out: f32/' \
// RUN:   -e 's/= arith.truncf %r : f32 to f16/= arith.addf %r, %zero : f32/' \
// RUN:   -e 's/yield \(.*\) : f16/yield \1 : f32/' \
// RUN:   %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir > %t/f32.mlir
// RUN: tessel-opt %t/f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t/f32 -o /dev/null
// RUN: ls %t/f32 | FileCheck %s --check-prefix=F32
// F32: matmul_relu_kernel.ptx
// F32-NEXT: matmul_relu_kernel_0.ptx
// F32-NEXT: matmul_relu_kernel_1.ptx

// mma.sync: A's 8x8 matrices read transposed, as B [k, n]'s are.
// RUN: tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir knobs=tile_m=64,tile_n=64,tile_k=32,warp_m=32,warp_n=32" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90" --tessel-export-kernels=dir=%t/mma -o /dev/null
// RUN: FileCheck %s --check-prefix=MMA --input-file=%t/mma/matmul_relu_kernel.ptx
// MMA-NOT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// MMA: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-NOT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
