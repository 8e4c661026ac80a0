// f32 inputs on the wgmma schedule (docs/f32.md): TMA loads f32 tiles of
// 32 columns (one 128-byte swizzle row), and wgmma multiplies them as TF32
// with its k8 instruction, which reads both operands K-major, so B is
// stored [n, k] (a Linear layer's weight).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=3,group_m=8,split_k=1" \
// RUN:   | FileCheck %s --check-prefix=X3
// RUN: sed 's/attributes {}/attributes {tessel.allow_tf32}/' %s > %t/tf32.mlir
// RUN: tessel-opt %t/tf32.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1,persistent=0" \
// RUN:   | FileCheck %s --check-prefix=TF32
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=3,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t/x3 -o /dev/null
// RUN: FileCheck %s --check-prefix=X3-PTX --input-file=%t/x3/linear_kernel.ptx
// RUN: FileCheck %s --check-prefix=X3-JSON --input-file=%t/x3/linear.launch.json
// RUN: tessel-opt %t/tf32.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=4,group_m=8,split_k=1,persistent=0" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t/tf32 -o /dev/null
// RUN: FileCheck %s --check-prefix=TF32-PTX --input-file=%t/tf32/linear_kernel.ptx
// RUN: FileCheck %s --check-prefix=TF32-JSON --input-file=%t/tf32/linear.launch.json

// Without tessel.allow_tf32 the kernel keeps FP32-level accuracy (3xTF32):
// each stage holds the TMA-loaded tiles and a second copy of each. The
// producer warpgroup's 128 threads wait for a stage's tiles, split every
// value x into hi (x with TF32's 13 missing mantissa bits cleared: what
// wgmma reads of x as loaded, so it is not stored) and lo = x - hi, with
// half a TF32 unit added so that wgmma rounds it (the second copy), and
// arrive on a third barrier ("ready", 128 arrivals) that the consumers
// wait on. A thread loads all its 16-byte chunks of both tiles (8 each)
// before it stores their low parts. TMA's transaction count is one copy of
// each tile: 128 x 128 bytes twice.
// X3-LABEL: func.func @linear(
// X3:         nvgpu.tma.create.descriptor %{{.+}} box[%c128{{[_0-9]*}}, %c32{{[_0-9]*}}] : memref<*xf32> -> <tensor = memref<128x32xf32
// X3:         nvgpu.tma.create.descriptor %{{.+}} box[%c128{{[_0-9]*}}, %c32{{[_0-9]*}}] : memref<*xf32> -> <tensor = memref<128x32xf32
// X3:         memref.alloc() : memref<197632xi8, #gpu.address_space<workgroup>>
// X3-COUNT-3: nvgpu.mbarrier.create
// X3:         nvgpu.mbarrier.init %[[EMPTY:[0-9]+]][%c0{{[_0-9]*}}], %c256
// X3:         nvgpu.mbarrier.init %[[READY:[0-9]+]][%c0{{[_0-9]*}}], %c128
// X3:         nvgpu.mbarrier.arrive.expect_tx %{{.+}}, %c32768
// The split loop carries its step's ring position (stage, phase parity).
// X3:         scf.for {{.+}} iter_args(%[[SSTAGE:[a-z0-9_]+]] = %{{.+}}, %[[SPHASE:[a-z0-9_]+]] = %{{.+}}) -> (index, i1)
// X3-NOT:     arith.divui
// X3:         nvgpu.mbarrier.try_wait.parity %{{.+}}[%[[SSTAGE]]], %[[SPHASE]],
// X3:         arith.constant dense<-8192> : vector<4xi32>
// X3-COUNT-16: vector.load
// X3-NOT:     vector.store
// X3-COUNT-16: vector.store
// X3-NOT:     vector.store
// X3:         nvvm.fence.proxy
// X3:         nvgpu.mbarrier.arrive %[[READY]]
// X3:         } else {
// X3:         nvgpu.mbarrier.try_wait.parity %[[READY]][%[[STAGE:[a-z0-9_]+]]]
// Four 8-column slices of a 32-column K step, three products each
// (lo x hi, hi x lo, hi x hi), in one wgmma group that starts a fresh
// partial sum (scale-d zero); once it completes, the step's stage is
// released at once (no group stays in flight, so the producer can refill
// it while the consumers add) and the partial is added to the running
// total with 64 FP32 adds (wgmma's own accumulation truncates).
// X3:         llvm.mlir.poison
// X3-NEXT:    nvvm.wgmma.fence.aligned
// X3:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// X3-COUNT-11: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// X3-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// X3-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// X3-NEXT:    nvgpu.mbarrier.arrive %[[EMPTY]][%[[STAGE]]]
// X3-COUNT-64: arith.addf
// X3-NOT:     nvgpu.mbarrier.arrive
// X3:         scf.yield
// X3-NOT:     nvvm.wgmma.mma_async

// With tessel.allow_tf32: one product, the tiles as TMA loaded them, no
// split, and the consumers wait on the full barriers.
// TF32-LABEL: func.func @linear(
// TF32:         memref.alloc() : memref<132096xi8, #gpu.address_space<workgroup>>
// TF32-COUNT-2: nvgpu.mbarrier.create
// TF32-NOT:     nvgpu.mbarrier.create
// TF32-NOT:     dense<-8192>
// TF32:         nvvm.wgmma.fence.aligned
// TF32-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// TF32-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// TF32-NEXT:    nvvm.wgmma.wait.group.sync.aligned 1
// TF32-NOT:     nvvm.wgmma.mma_async

// The producer's split in PTX: hi = x & -8192 (13 bits cleared), lo =
// x - hi, stored with half a TF32 unit (4096) added to its bits, so that
// wgmma's truncation of it rounds to the nearest TF32 value.
// X3-PTX: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// X3-PTX: and.b32 [[HI:%r[0-9]+]], [[X:%r[0-9]+]], -8192;
// X3-PTX: sub.rn.f32 [[LO:%r[0-9]+]], [[X]], [[HI]];
// X3-PTX: add.s32 [[LOR:%r[0-9]+]], [[LO]], 4096;
// X3-PTX: st.shared.v4.b32 [{{.+}}], {{[{].*}}[[LOR]]{{.*[}]}};
// TF32-PTX-NOT: and.b32 {{.+}}, -8192;
// TF32-PTX: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32

// The launch file records the workload's precision, which sets the
// reference check's tolerance (FP32's 1e-5 without it).
// X3-JSON-NOT: "precision"
// TF32-JSON: "precision": "tf32"

func.func @linear(%x: tensor<512x1024xf32>, %w: tensor<768x1024xf32>,
    %y_out: tensor<512x768xf32>) -> tensor<512x768xf32> attributes {} {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x768xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<512x768xf32>) -> tensor<512x768xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<512x1024xf32>, tensor<768x1024xf32>)
      outs(%acc : tensor<512x768xf32>) -> tensor<512x768xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<512x768xf32>) outs(%y_out : tensor<512x768xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %fzero : f32
    linalg.yield %r : f32
  } -> tensor<512x768xf32>
  return %y : tensor<512x768xf32>
}
