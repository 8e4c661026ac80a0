// An A stored [k, m] (MN-major) on the wgmma schedule: TMA loads A's tile
// in 64-column boxes along M (one per consumer warpgroup), and wgmma reads
// it with its transpose flag (imm-trans-a = 1; B [k, n] sets imm-trans-b).
// TF32, rows that TMA cannot read (M * 2 bytes not a multiple of 16) and
// clusters are refused with their reason; mma.sync refuses A [k, m]; a
// list of schedules falls back to SIMT for the misaligned rows.
// (Checked on an H100: run-a-km-gpu.test; docs/wgmma.md.)
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

// RUN: not tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=cluster=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CLUSTER
// CLUSTER: error: cluster = 2 with A stored [k, m]: multicast halves of A's tile are built for A [m, k] (use cluster = 1)

// RUN: sed -e 's/136x200xf16/136x201xf16/g' -e 's/200x304xf/201x304xf/g' \
// RUN:   %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir > %t/misaligned.mlir
// RUN: not tessel-opt %t/misaligned.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: error: A stored [k, m] needs rows on 16-byte boundaries (M = 201 16-bit elements) for TMA; store A [m, k]
// RUN: tessel-opt %t/misaligned.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir,%schedules/matmul_relu_mma.mlir,%schedules/matmul_relu_simt.mlir" \
// RUN:   | FileCheck %s --check-prefix=FALLBACK
// FALLBACK: path = "{{.*}}matmul_relu_simt.mlir"

// RUN: sed -e 's/xf16>/xf32>/g' -e 's/%out: f16/%out: f32/' \
// RUN:   -e 's/= arith.truncf %r : f32 to f16/= arith.addf %r, %zero : f32/' \
// RUN:   -e 's/yield \(.*\) : f16/yield \1 : f32/' \
// RUN:   %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir > %t/f32.mlir
// RUN: not tessel-opt %t/f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F32
// F32: error: A stored [k, m] with f32 inputs: TF32 wgmma reads A [m, k] only (store A [m, k])

// RUN: not tessel-opt %S/Inputs/matmul-relu-a-km-200x304x136-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MMA
// MMA: error: the mma.sync rewrite needs A[m,k] and B[k,n] or B[n,k] without batch dimensions; this contraction is A[k,m] B[k,n]
