// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=4,group_m=8,split_k=1" \
// RUN:   --split-input-file | FileCheck %s
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=2,group_m=1,split_k=1" \
// RUN:   --split-input-file | FileCheck %s --check-prefix=SMALL
// Deep rings (stages 8-16, for small tiles alone on their SM): 12 stages of
// 64x64 tiles take 12 full and 12 empty barriers; 16 stages of a 128x256
// tile do not fit and are refused naming the shared memory; a value
// between the options is refused naming the knob.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=12,group_m=1,split_k=1" \
// RUN:   --split-input-file | FileCheck %s --check-prefix=DEEP
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=16,group_m=8,split_k=1" \
// RUN:   --split-input-file 2>&1 | FileCheck %s --check-prefix=DEEP-SMEM
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=64,stages=7,group_m=1,split_k=1" \
// RUN:   --split-input-file 2>&1 | FileCheck %s --check-prefix=DEEP-VALUE
// DEEP-COUNT-2:  nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 12>
// DEEP:          nvgpu.mbarrier.arrive.expect_tx {{.+}}, %c16384{{.+}}num_barriers = 12>
// DEEP:          nvvm.wgmma.mma_async {{.+}} <m = 64, n = 64, k = 16>
// DEEP-SMEM:     matmul_relu_wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the 128x256 tile with 16 stages needs 787712 bytes of shared memory; an sm_90 block has at most 232448
// DEEP-VALUE:    matmul_relu_wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: value 7 is not among the options of knob 'stages': [2, 3, 4, 5, 6, 8, 10, 12, 16]

// The Hopper schedule with the tuned 4096^3 knobs (128x256 blocks, 4 stages,
// groups of 8 block rows). The host creates one 128-byte-swizzled TMA tensor
// map per operand (A: 128x64 boxes, B: 64x64 boxes); each block runs
// 128 x 3 threads: two consumer warpgroups (64 rows each) and one producer
// warpgroup. The producer's leader thread fills a 4-deep ring of
// 128x64 + 4 x 64x64 tiles (48 KiB per stage) guarded by "full" mbarriers
// (transaction count) and "empty" mbarriers (256 consumer arrivals); the
// consumers run one m64n256 wgmma per stage and release the previous stage.
// After the loop, ReLU + truncf run on the accumulator registers, a pair of
// columns at a time; the f16 pairs are staged in shared memory (rows padded
// to 264 elements) and copied out in 16-byte stores: a 128x256 tile is 16
// stores per consumer thread. Shared memory: 4 x 48 KiB
// of ring + 1024 bytes of alignment slack = 197632 bytes.

// CHECK-LABEL: func.func @matmul_relu(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<256x256xf16>, %[[B:[a-z0-9_]+]]: memref<256x512xf16>, %[[C:[a-z0-9_]+]]: memref<256x512xf16>)
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", epilogue = ["constant 0", "maximumf 0 1"], k = 256 : i64, kind = "contraction", lhs = 0 : i64, m = 256 : i64, n = 512 : i64
// CHECK:         %[[CASTA:[a-z0-9_]+]] = memref.cast %[[A]] : memref<256x256xf16> to memref<*xf16>
// CHECK:         %[[DESCA:[a-z0-9_]+]] = nvgpu.tma.create.descriptor %[[CASTA]] box[%c128{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         %[[CASTB:[a-z0-9_]+]] = memref.cast %[[B]] : memref<256x512xf16> to memref<*xf16>
// CHECK:         %[[DESCB:[a-z0-9_]+]] = nvgpu.tma.create.descriptor %[[CASTB]] box[%c64{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %c2{{[_0-9]*}}, {{[^=]+}} = %c2{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// CHECK-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}, {{[^=]+}} = %c3{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// CHECK:           arith.minui
// CHECK:           memref.alloc() : memref<197632xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[FULL:[a-z0-9_]+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK:           %[[EMPTY:[a-z0-9_]+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK-NOT:       nvgpu.mbarrier.create
// CHECK:           nvgpu.mbarrier.init %[[FULL]][%c0{{[_0-9]*}}], %c1{{[_0-9]*}}
// CHECK:           nvgpu.mbarrier.init %[[EMPTY]][%c0{{[_0-9]*}}], %c256{{[_0-9]*}}
// CHECK:           nvgpu.tma.prefetch.descriptor %[[DESCA]]
// CHECK:           nvgpu.tma.prefetch.descriptor %[[DESCB]]
// CHECK:           gpu.barrier

// The producer: one block per SM (197,632 bytes of shared memory), so its
// warpgroup gives the consumers its registers (setmaxnreg: 168 at entry,
// 40 kept, 232 for each consumer); then it waits for a free stage,
// announces 49152 bytes, loads one box of A and four boxes of B into it.
// CHECK:           scf.if
// CHECK-NEXT:        nvvm.setmaxregister  decrease 40
// CHECK:           scf.for {{.+}} iter_args(%[[PSTAGE:[a-z0-9_]+]] = %{{.+}}, %[[PPHASE:[a-z0-9_]+]] = %{{.+}}) -> (index, i1)
// CHECK-NOT:         arith.divui
// CHECK:             %[[EMPTYPHASE:[a-z0-9_]+]] = arith.xori %[[PPHASE]], %true
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[PSTAGE]]], %[[EMPTYPHASE]],
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%[[S:[a-z0-9_]+]]], %c49152{{[_0-9]*}}
// CHECK:             nvgpu.tma.async.load %[[DESCA]][{{.+}}], %[[FULL]][%[[S]]] to %{{.+}} -> memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4:     nvgpu.tma.async.load %[[DESCB]][{{.+}}], %[[FULL]][%[[S]]] to %{{.+}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT:         nvgpu.tma.async.load

// The consumers.
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister  increase 232
// CHECK:           %[[INIT:[a-z0-9_]+]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x256xf32>>
// The K loop carries the step's ring position (its stage and the parity of
// the phase it waits for) rather than dividing the step by `stages`.
// CHECK:           %[[ACC:[a-z0-9_]+]]:3 = scf.for {{.+}} iter_args(%[[ITER:[a-z0-9_]+]] = %[[INIT]], %[[STAGE:[a-z0-9_]+]] = %c0{{[_0-9]*}}, %[[PHASE:[a-z0-9_]+]] = %{{.+}}) -> (!nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>, index, i1)
// CHECK-NOT:         arith.divui
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[FULL]][%[[STAGE]]], %[[PHASE]],
// The K step's wgmma group, at the NVVM level: one fence, four
// m64n256k16 instructions (A's descriptor advanced 32 bytes into its
// swizzled rows, B's 16 of its 128-byte rows, in 16-byte units), one
// commit, and a wait that leaves this group in flight.
// CHECK:             %[[DA:[a-z0-9_]+]] = nvgpu.warpgroup.generate.descriptor %{{.+}}, %[[DESCA]] : {{.+}} -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
// CHECK-NEXT:        %[[IA:[a-z0-9_]+]] = builtin.unrealized_conversion_cast %[[DA]] : {{.+}} to i64
// CHECK:             %[[DB:[a-z0-9_]+]] = nvgpu.warpgroup.generate.descriptor %{{.+}}, %[[DESCB]] : {{.+}} -> <tensor = memref<64x256xf16, #gpu.address_space<workgroup>>>
// CHECK-NEXT:        %[[IB:[a-z0-9_]+]] = builtin.unrealized_conversion_cast %[[DB]] : {{.+}} to i64
// CHECK-NEXT:        %[[REGS0:[a-z0-9_]+]] = builtin.unrealized_conversion_cast %[[ITER]]
// CHECK-NEXT:        %[[FRAG0:[a-z0-9_]+]] = llvm.extractvalue %[[REGS0]][0]
// CHECK-NEXT:        nvvm.wgmma.fence.aligned
// CHECK-NEXT:        %[[W0:[a-z0-9_]+]] = nvvm.wgmma.mma_async %[[IA]], %[[IB]], %[[FRAG0]], <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NEXT:        %[[C2:[a-z0-9_]+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:        %[[A1:[a-z0-9_]+]] = llvm.add %[[IA]], %[[C2]] : i64
// CHECK-NEXT:        %[[C128:[a-z0-9_]+]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT:        %[[B1:[a-z0-9_]+]] = llvm.add %[[IB]], %[[C128]] : i64
// CHECK-NEXT:        nvvm.wgmma.mma_async %[[A1]], %[[B1]], %[[W0]], <m = 64, n = 256, k = 16>, D[<f32>, <one>]
// CHECK-COUNT-2:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>]
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:             %[[NEXT:[a-z0-9_]+]] = builtin.unrealized_conversion_cast %{{.+}} to !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
// The next step's stage: this one's plus one, 0 after the last (4), where
// the phase flips; the previous step's stage (3 ahead) is released.
// CHECK:             %[[MOVED:[a-z0-9_]+]] = arith.addi %[[STAGE]], %c1{{[_0-9]*}} : index
// CHECK-NEXT:        %[[WRAPS:[a-z0-9_]+]] = arith.cmpi uge, %[[MOVED]], %c4{{[_0-9]*}} : index
// CHECK-NEXT:        %[[BACK:[a-z0-9_]+]] = arith.subi %[[MOVED]], %c4{{[_0-9]*}} : index
// CHECK-NEXT:        %[[NSTAGE:[a-z0-9_]+]] = arith.select %[[WRAPS]], %[[BACK]], %[[MOVED]] : index
// CHECK-NEXT:        %[[NPHASE:[a-z0-9_]+]] = arith.xori %[[PHASE]], %[[WRAPS]] : i1
// CHECK:             arith.addi %[[STAGE]], %c3{{[_0-9]*}} : index
// CHECK:             nvgpu.mbarrier.arrive %[[EMPTY]][
// CHECK:             scf.yield %[[NEXT]], %[[NSTAGE]], %[[NPHASE]]
// CHECK:           } {tessel.wgmma_main_loop}
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           %[[REGS:[a-z0-9_]+]] = builtin.unrealized_conversion_cast %[[ACC]]#0 : !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>> to !llvm.struct<(struct<(f32,
// CHECK:           %[[FRAG:[a-z0-9_]+]] = llvm.extractvalue %[[REGS]][0]
// CHECK:           %[[X0:[a-z0-9_]+]] = llvm.extractvalue %[[FRAG]][0]
// CHECK:           %[[X1:[a-z0-9_]+]] = llvm.extractvalue %[[FRAG]][1]
// CHECK:           %[[P:[a-z0-9_]+]] = vector.from_elements %[[X0]], %[[X1]] : vector<2xf32>
// CHECK:           %[[R:[a-z0-9_]+]] = arith.maximumf %[[P]], %{{.+}} : vector<2xf32>
// CHECK:           %[[T:[a-z0-9_]+]] = arith.truncf %[[R]] : vector<2xf32> to vector<2xf16>
// CHECK-COUNT-63:  arith.truncf {{.+}} : vector<2xf32> to vector<2xf16>
// CHECK:           nvvm.fence.proxy
// CHECK:           nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// CHECK:           vector.store %[[T]], %{{.+}} : memref<128x264xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-COUNT-63:  vector.store {{.+}} : memref<128x264xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK:           nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// CHECK:           %[[V:[a-z0-9_]+]] = vector.load %{{.+}} : memref<128x264xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:           vector.store %[[V]], %{{.+}} : memref<128x256xf16, strided<[512, 1], offset: ?>>, vector<8xf16>
// CHECK-COUNT-15:  vector.store {{.+}} : memref<128x256xf16, strided<[512, 1], offset: ?>>, vector<8xf16>
// CHECK-NOT:       vector.store
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.
// CHECK:         return %[[C]] : memref<256x512xf16>

// SMALL-LABEL: func.func @matmul_relu(
// SMALL:         nvgpu.tma.create.descriptor %{{.+}} box[%c64{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// SMALL:         nvgpu.tma.create.descriptor %{{.+}} box[%c64{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// SMALL:         gpu.launch blocks({{[^)]+}}) in ({{[^=]+}} = %c8{{[_0-9]*}}, {{[^=]+}} = %c4{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// SMALL-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}, {{[^=]+}} = %c2{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// SMALL-NOT:       arith.minui
// SMALL-NOT:       nvvm.setmaxregister
// SMALL:           memref.alloc() : memref<33792xi8, #gpu.address_space<workgroup>>
// SMALL:           nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// SMALL:           %[[EMPTY:[a-z0-9_]+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// SMALL:           nvgpu.mbarrier.init %[[EMPTY]][%c0{{[_0-9]*}}], %c128{{[_0-9]*}}
// SMALL:           nvgpu.mbarrier.arrive.expect_tx %{{.+}}, %c16384{{[_0-9]*}}
// SMALL-COUNT-2:   nvgpu.tma.async.load {{.+}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// SMALL-NOT:       nvgpu.tma.async.load
// SMALL-COUNT-4:   nvvm.wgmma.mma_async {{.+}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// SMALL:         } {tessel.wgmma_main_loop}
// SMALL-COUNT-16: vector.store {{.+}} : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// SMALL-COUNT-4: vector.store {{.+}} : memref<64x64xf16, strided<[512, 1], offset: ?>>, vector<8xf16>
// SMALL-NOT:     vector.store
// SMALL:         gpu.terminator
func.func @matmul_relu(%A: tensor<256x256xf16>, %B: tensor<256x512xf16>,
                       %C: tensor<256x512xf16>) -> tensor<256x512xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x256xf16>, tensor<256x512xf16>)
                      outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x512xf32>) outs(%C : tensor<256x512xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x512xf16>
  return %relu : tensor<256x512xf16>
}

// -----

// bf16: the same pipeline on bf16 tensor maps, wgmma and stores.

// CHECK-LABEL: func.func @matmul_relu_bf16
// CHECK:         nvgpu.tma.create.descriptor %{{.+}} box[%c128{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK:         nvgpu.tma.create.descriptor %{{.+}} box[%c64{{[_0-9]*}}, %c64{{[_0-9]*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK:         arith.maximumf {{.+}} : vector<2xf32>
// CHECK:         arith.truncf {{.+}} : vector<2xf32> to vector<2xbf16>
// CHECK:         vector.store {{.+}} : memref<128x256xbf16, strided<[512, 1], offset: ?>>, vector<8xbf16>
// SMALL-LABEL: func.func @matmul_relu_bf16
// SMALL:         gpu.launch
// SMALL-SAME:      threads({{[^)]+}}) in ({{[^=]+}} = %c128{{[_0-9]*}}, {{[^=]+}} = %c2{{[_0-9]*}}, {{[^=]+}} = %c1{{[_0-9]*}})
// SMALL:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
func.func @matmul_relu_bf16(%A: tensor<256x256xbf16>, %B: tensor<256x512xbf16>,
                            %C: tensor<256x512xbf16>) -> tensor<256x512xbf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<256x256xbf16>, tensor<256x512xbf16>)
                      outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<256x512xf32>) outs(%C : tensor<256x512xbf16>) {
  ^bb0(%x: f32, %out: bf16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x512xbf16>
  return %relu : tensor<256x512xbf16>
}
