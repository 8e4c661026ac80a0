// RUN: rm -rf %t && mkdir -p %t
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=256,stages=4,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t \
// RUN:   | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_relu_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/matmul_relu.launch.json

// wgmma exists only on sm_90a: the schedule says so (tessel.target_chip),
// and without chip= its kernels are compiled for sm_90a; with chip=sm_90
// the lowering's entry check refuses the function, before NVVM.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   --tessel-lower-to-ptx | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: gpu.binary @matmul_relu_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SM90

// A 64x192 block with 3 stages is sized for two per SM (99 KiB of shared
// memory, 96 accumulator registers): it is compiled for two, so that ptxas
// keeps its 256 threads within half the register file (an epilogue with a
// bias took it to 132 registers, and the SM to one block).
// RUN: rm -rf %t.two && mkdir -p %t.two
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=64,tile_n=192,stages=3,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=%t.two -o /dev/null
// RUN: FileCheck %s --check-prefix=TWO --input-file=%t.two/matmul_relu_kernel.ptx
// TWO:        .maxntid 128, 2, 1
// TWO-NEXT:   .minnctapersm 2
// TWO-NOT:    setmaxnreg

// The wgmma schedule (the tuned 4096^3 knobs: 128x256 tiles, 4 stages) lowered to
// PTX for sm_90a. One such block fits an SM: it is compiled for one
// (.minnctapersm 1, tessel-require-entry-registers), so that ptxas knows
// its 168 registers at entry and honors setmaxnreg, which leaves the
// producer 40 and gives each consumer 232. The two TMA tensor maps are created on the host and
// passed by value: each is a 128-byte, 64-aligned kernel parameter
// (__grid_constant__ CUtensorMap) whose generic address (cvta.param) the
// TMA loads use; nothing loads a pointer from them. The producer announces
// each stage's bytes on its mbarrier and issues 2-D bulk tensor copies; the
// consumers wait on the mbarrier parity, run m64n256k16 wgmma with one
// group in flight, release the stage, and after the loop wait for all
// groups, apply ReLU (max.NaN) and store 16 bytes at a time. The ring
// (4 x 48 KiB) plus 1024 bytes of alignment slack is the kernel's dynamic
// shared memory, declared .extern so that it follows the static mbarriers
// instead of overlapping them (tessel-extern-dynamic-shared-memory).

// HOST-LABEL: func.func @matmul_relu
// HOST:         %[[SMEM:.+]] = arith.constant 197632 : i32
// HOST:         %[[MAPA:.+]] = nvgpu.tma.create.descriptor {{.+}} -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// HOST:         %[[MAPB:.+]] = nvgpu.tma.create.descriptor {{.+}} -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// HOST:         gpu.launch_func @matmul_relu_kernel::@matmul_relu_kernel
// HOST-SAME:      threads in (%c128{{[_0-9]*}}, %c3{{[_0-9]*}}, %c1{{[_0-9]*}})
// HOST-SAME:      dynamic_shared_memory_size %[[SMEM]]
// HOST-SAME:      args(%{{.+}} : memref<256x512xf16>, %[[MAPA]] : !nvgpu.tensormap.descriptor<{{.+}}>, %[[MAPB]] : !nvgpu.tensormap.descriptor<{{.+}}>)
// HOST:         gpu.binary @matmul_relu_kernel {{.+}}#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">

// PTX:        .target sm_90a
// PTX:        .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX:        .visible .entry matmul_relu_kernel(
// PTX-NEXT:     .param .u64 .ptr .align 16 matmul_relu_kernel_param_0,
// PTX-NEXT:     .param .align 64 .b8 matmul_relu_kernel_param_1[128],
// PTX-NEXT:     .param .align 64 .b8 matmul_relu_kernel_param_2[128]
// PTX-NEXT:   )
// PTX-NEXT:   .maxntid 128, 3, 1
// PTX-NEXT:   .minnctapersm 1
// PTX-NOT:    .shared .align 16 .b8 __dynamic_shmem__0;
// PTX-NOT:    ld.param.{{.+}}[matmul_relu_kernel_param_1]
// PTX-NOT:    ld.param.{{.+}}[matmul_relu_kernel_param_2]
// PTX-DAG:    mov.b64 %[[P1:rd[0-9]+]], matmul_relu_kernel_param_1;
// PTX-DAG:    mov.b64 %[[P2:rd[0-9]+]], matmul_relu_kernel_param_2;
// PTX-DAG:    cvta.param.u64 %[[A:rd[0-9]+]], %[[P1]];
// PTX-DAG:    cvta.param.u64 %[[B:rd[0-9]+]], %[[P2]];
// PTX:        setmaxnreg.dec.sync.aligned.u32 40;
// PTX:        mbarrier.arrive.expect_tx.shared.b64 %{{.+}}, [__mbarrier], %{{.+}};
// PTX-NEXT:   cvta.shared.u64
// PTX:        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%{{.+}}], [%[[A]], {{.+}}], [__mbarrier];
// PTX:        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%{{.+}}], [%[[B]], {{.+}}], [__mbarrier];
// PTX:        setmaxnreg.inc.sync.aligned.u32 232;
// PTX:        mbarrier.try_wait.parity.shared.b64
// PTX:        wgmma.fence.sync.aligned;
// PTX:        wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX:        wgmma.commit_group.sync.aligned;
// PTX-NEXT:   wgmma.wait_group.sync.aligned 1;
// PTX:        mbarrier.arrive.shared.b64
// PTX:        wgmma.wait_group.sync.aligned 0;
// PTX:        max.NaN.f32
// PTX:        cvt.rn.f16x2.f32
// PTX:        fence.proxy.async.shared::cta;
// PTX-NEXT:   bar.sync 1, 256;
// PTX-COUNT-64: st.shared.b32
// PTX-NEXT:   bar.sync 1, 256;
// PTX:        ld.shared.v4.b32
// PTX:        st.global.v4.b32

// JSON:      "block": [
// JSON-NEXT:   128,
// JSON-NEXT:   3,
// JSON-NEXT:   1
// JSON-NEXT: ],
// JSON-NEXT: "dynamic_shared_memory": 197632,
// JSON:      "params": [
// JSON-NEXT:   {
// JSON-NEXT:     "argument": 2,
// JSON-NEXT:     "kind": "buffer"
// JSON-NEXT:   },
// JSON-NEXT:   {
// JSON-NEXT:     "argument": 0,
// JSON-NEXT:     "box": [
// JSON-NEXT:       128,
// JSON-NEXT:       64
// JSON-NEXT:     ],
// JSON-NEXT:     "interleave": "none",
// JSON-NEXT:     "kind": "tensor_map",
// JSON-NEXT:     "l2_promotion": "256b",
// JSON-NEXT:     "oob_fill": "zero",
// JSON-NEXT:     "swizzle": "128b"
// JSON-NEXT:   },
// JSON-NEXT:   {
// JSON-NEXT:     "argument": 1,
// JSON-NEXT:     "box": [
// JSON-NEXT:       64,
// JSON-NEXT:       64
// JSON-NEXT:     ],
// JSON-NEXT:     "interleave": "none",
// JSON-NEXT:     "kind": "tensor_map",
// JSON-NEXT:     "l2_promotion": "256b",
// JSON-NEXT:     "oob_fill": "zero",
// JSON-NEXT:     "swizzle": "128b"
// JSON-NEXT:   }
// JSON-NEXT: ],

// SM90:      lower-to-ptx-wgmma.mlir:[[# @LINE + 1]]:1: error: function 'matmul_relu' was scheduled with '{{.*}}matmul_relu_wgmma.mlir', whose kernels cannot be compiled for sm_90: the schedule needs sm_90a (its tessel.target_chip); pass chip=sm_90a or leave chip unset (sm_90a code runs on sm_90 GPUs such as the H100)
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
