// RUN: rm -rf %t && mkdir -p %t

// The SIMT schedule with its default knobs (tile_m=64 tile_n=128 thread_m=4
// thread_n=8) on a 256x1024x1024 matmul: grid (1024/128, 256/64) = (8, 4),
// block (128/8, 64/4) = (16, 16).
// RUN: tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir \
// RUN:   --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t/simt \
// RUN:   | FileCheck %s --check-prefix=MODULE
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/simt/matmul_relu.launch.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/simt/matmul_relu_kernel.ptx

// The module itself is left unchanged.
// MODULE-LABEL: func.func @matmul_relu
// MODULE:         gpu.launch_func @matmul_relu_kernel::@matmul_relu_kernel
// MODULE:       gpu.binary @matmul_relu_kernel

// JSON:      {
// JSON-NEXT:   "arguments": [
// JSON-NEXT:     {
// JSON-NEXT:       "element_type": "f32",
// JSON-NEXT:       "shape": [
// JSON-NEXT:         256,
// JSON-NEXT:         1024
// JSON-NEXT:       ]
// JSON-NEXT:     },
// JSON-NEXT:     {
// JSON-NEXT:       "element_type": "f32",
// JSON-NEXT:       "shape": [
// JSON-NEXT:         1024,
// JSON-NEXT:         1024
// JSON-NEXT:       ]
// JSON-NEXT:     },
// JSON-NEXT:     {
// JSON-NEXT:       "element_type": "f32",
// JSON-NEXT:       "shape": [
// JSON-NEXT:         256,
// JSON-NEXT:         1024
// JSON-NEXT:       ]
// JSON-NEXT:     }
// JSON-NEXT:   ],
// JSON-NEXT:   "calling_convention": "bare-pointer",
// JSON-NEXT:   "function": "matmul_relu",
// JSON-NEXT:   "launches": [
// JSON-NEXT:     {
// JSON-NEXT:       "binary": "matmul_relu_kernel",
// JSON-NEXT:       "block": [
// JSON-NEXT:         16,
// JSON-NEXT:         16,
// JSON-NEXT:         1
// JSON-NEXT:       ],
// JSON-NEXT:       "dynamic_shared_memory": 0,
// JSON-NEXT:       "grid": [
// JSON-NEXT:         8,
// JSON-NEXT:         4,
// JSON-NEXT:         1
// JSON-NEXT:       ],
// JSON-NEXT:       "image": "matmul_relu_kernel.ptx",
// JSON-NEXT:       "kernel": "matmul_relu_kernel",
// JSON-NEXT:       "params": [
// JSON-NEXT:         {
// JSON-NEXT:           "argument": 2,
// JSON-NEXT:           "kind": "buffer"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "argument": 0,
// JSON-NEXT:           "kind": "buffer"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "argument": 1,
// JSON-NEXT:           "kind": "buffer"
// JSON-NEXT:         }
// JSON-NEXT:       ],
// JSON-NEXT:       "pointer_alignment": 16
// JSON-NEXT:     }
// JSON-NEXT:   ],
// JSON-NEXT:   "results": [
// JSON-NEXT:     2
// JSON-NEXT:   ],
// Which schedule and knob values produced the kernels, and where the
// values came from (the schedule's own here).
// JSON-NEXT:   "schedule": {
// JSON-NEXT:     "hash": "0x{{[0-9a-f]+}}",
// JSON-NEXT:     "knob_source": "schedule defaults",
// JSON-NEXT:     "knobs": {
// JSON-NEXT:       "thread_m": "4",
// JSON-NEXT:       "thread_n": "8",
// JSON-NEXT:       "tile_k": "8",
// JSON-NEXT:       "tile_m": "64",
// JSON-NEXT:       "tile_n": "128"
// JSON-NEXT:     },
// JSON-NEXT:     "path": "{{.*}}schedules/matmul_relu_simt.mlir"
// JSON-NEXT:   },
// JSON-NEXT:   "workload": {
// JSON-NEXT:     "accumulator_type": "f32",
// JSON-NEXT:     "epilogue": [
// JSON-NEXT:       "constant 0",
// JSON-NEXT:       "maximumf 0 1"
// JSON-NEXT:     ],
// JSON-NEXT:     "k": 1024,
// JSON-NEXT:     "kind": "contraction",
// JSON-NEXT:     "lhs": 0,
// JSON-NEXT:     "m": 256,
// JSON-NEXT:     "n": 1024,
// JSON-NEXT:     "out": 2,
// JSON-NEXT:     "rhs": 1
// JSON-NEXT:   }
// JSON-NEXT: }

// The .ptx file is the gpu.binary's PTX text, unescaped; its parameters
// declare the alignment recorded as pointer_alignment.
// PTX:      .version 8.0
// PTX-NEXT: .target sm_90
// PTX:      .visible .entry matmul_relu_kernel(
// PTX-NEXT:   .param .u64 .ptr .align 16 matmul_relu_kernel_param_0,
// PTX-NEXT:   .param .u64 .ptr .align 16 matmul_relu_kernel_param_1,
// PTX-NEXT:   .param .u64 .ptr .align 16 matmul_relu_kernel_param_2
// PTX-NEXT: )
// PTX-NEXT: .maxntid 16, 16, 1

// pointer-alignment of the pipeline reaches the metadata.
// RUN: tessel-opt %examples/matmul_relu_256x1024x1024_f16.mlir \
// RUN:   --tessel-apply-schedule="defaults=schedule schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   --tessel-lower-to-ptx="pointer-alignment=8" --tessel-export-kernels=dir=%t/f16 \
// RUN:   > /dev/null
// RUN: FileCheck %s --check-prefix=F16 --input-file=%t/f16/matmul_relu.launch.json
// F16:      "element_type": "f16",
// F16:      "element_type": "f16",
// F16:      "element_type": "f16",
// F16:      "pointer_alignment": 8
// F16:      "workload": {
// F16-NEXT:   "accumulator_type": "f32",

// A hand-written lowered module: two launches in program order, scalar
// parameters, dynamic shared memory, a cubin image, results that are
// arguments in another order. Functions without launches and declarations
// get no file.
// RUN: tessel-opt %s --tessel-export-kernels=dir=%t/manual | FileCheck %s --check-prefix=MANUAL-MODULE
// RUN: FileCheck %s --check-prefix=MANUAL --input-file=%t/manual/two_launches.launch.json
// RUN: FileCheck %s --check-prefix=MANUAL-PTX --input-file=%t/manual/kernels.ptx
// RUN: FileCheck %s --check-prefix=MANUAL-CUBIN --input-file=%t/manual/cubin.cubin
// RUN: ls %t/manual | FileCheck %s --check-prefix=FILES

// MANUAL-MODULE: gpu.binary @kernels
// MANUAL-MODULE: func.func @two_launches
// MANUAL-MODULE-COUNT-3: gpu.launch_func
// MANUAL-MODULE: func.func @with_workload

// MANUAL:      "arguments": [
// MANUAL-NEXT:   {
// MANUAL-NEXT:     "element_type": "f32",
// MANUAL-NEXT:     "shape": [
// MANUAL-NEXT:       16,
// MANUAL-NEXT:       4
// MANUAL-NEXT:     ]
// MANUAL-NEXT:   },
// MANUAL-NEXT:   {
// MANUAL-NEXT:     "element_type": "i32",
// MANUAL-NEXT:     "shape": [
// MANUAL-NEXT:       8
// MANUAL-NEXT:     ]
// MANUAL-NEXT:   }
// MANUAL-NEXT: ],
// MANUAL:      "function": "two_launches",
// MANUAL-NEXT: "launches": [
// MANUAL-NEXT:   {
// MANUAL-NEXT:     "binary": "kernels",
// MANUAL-NEXT:     "block": [
// MANUAL-NEXT:       64,
// MANUAL-NEXT:       1,
// MANUAL-NEXT:       1
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "dynamic_shared_memory": 1024,
// MANUAL-NEXT:     "grid": [
// MANUAL-NEXT:       2,
// MANUAL-NEXT:       1,
// MANUAL-NEXT:       1
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "image": "kernels.ptx",
// MANUAL-NEXT:     "kernel": "first",
// MANUAL-NEXT:     "params": [
// MANUAL-NEXT:       {
// MANUAL-NEXT:         "argument": 0,
// MANUAL-NEXT:         "kind": "buffer"
// MANUAL-NEXT:       },
// MANUAL-NEXT:       {
// MANUAL-NEXT:         "kind": "scalar",
// MANUAL-NEXT:         "type": "f32",
// MANUAL-NEXT:         "value": "2.50000000000000000e+00"
// MANUAL-NEXT:       }
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "pointer_alignment": 8
// MANUAL-NEXT:   },
// MANUAL-NEXT:   {
// MANUAL-NEXT:     "binary": "kernels",
// MANUAL-NEXT:     "block": [
// MANUAL-NEXT:       32,
// MANUAL-NEXT:       2,
// MANUAL-NEXT:       1
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "dynamic_shared_memory": 0,
// MANUAL-NEXT:     "grid": [
// MANUAL-NEXT:       1,
// MANUAL-NEXT:       1,
// MANUAL-NEXT:       2
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "image": "kernels.ptx",
// MANUAL-NEXT:     "kernel": "second",
// MANUAL-NEXT:     "params": [
// MANUAL-NEXT:       {
// MANUAL-NEXT:         "argument": 1,
// MANUAL-NEXT:         "kind": "buffer"
// MANUAL-NEXT:       }
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "pointer_alignment": 1
// MANUAL-NEXT:   },
// MANUAL-NEXT:   {
// MANUAL-NEXT:     "binary": "cubin",
// MANUAL-NEXT:     "block": [
// MANUAL-NEXT:       128,
// MANUAL-NEXT:       1,
// MANUAL-NEXT:       1
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "dynamic_shared_memory": 0,
// MANUAL-NEXT:     "grid": [
// MANUAL-NEXT:       1,
// MANUAL-NEXT:       2,
// MANUAL-NEXT:       1
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "image": "cubin.cubin",
// MANUAL-NEXT:     "kernel": "third",
// MANUAL-NEXT:     "params": [
// MANUAL-NEXT:       {
// MANUAL-NEXT:         "argument": 1,
// MANUAL-NEXT:         "kind": "buffer"
// MANUAL-NEXT:       },
// MANUAL-NEXT:       {
// MANUAL-NEXT:         "kind": "scalar",
// MANUAL-NEXT:         "type": "i32",
// MANUAL-NEXT:         "value": "-3"
// MANUAL-NEXT:       },
// MANUAL-NEXT:       {
// MANUAL-NEXT:         "argument": 0,
// MANUAL-NEXT:         "kind": "buffer"
// MANUAL-NEXT:       }
// MANUAL-NEXT:     ],
// MANUAL-NEXT:     "pointer_alignment": 1
// MANUAL-NEXT:   }
// MANUAL-NEXT: ],
// MANUAL-NEXT: "results": [
// MANUAL-NEXT:   1,
// MANUAL-NEXT:   0
// MANUAL-NEXT: ]
// MANUAL-NEXT: }
// MANUAL-NOT: workload

// MANUAL-PTX: .visible .entry first(
// MANUAL-PTX-NEXT: .param .u64 .ptr .align 8 first_param_0,
// MANUAL-PTX: .visible .entry second(

// MANUAL-CUBIN: ELF

// FILES:      cubin.cubin
// FILES-NEXT: kernels.ptx
// FILES-NEXT: two_launches.launch.json
// FILES-NEXT: with_workload.launch.json
// FILES-NOT:  {{.}}

// RUN: FileCheck %s --check-prefix=WORKLOAD --input-file=%t/manual/with_workload.launch.json
// WORKLOAD:      "results": [],
// WORKLOAD-NEXT: "workload": {
// WORKLOAD-NEXT:   "accumulator_type": "f32",
// WORKLOAD-NEXT:   "epilogue": [
// WORKLOAD-NEXT:     "constant 0",
// WORKLOAD-NEXT:     "maximumf 0 1"
// WORKLOAD-NEXT:   ],
// WORKLOAD-NEXT:   "k": 3,
// WORKLOAD-NEXT:   "kind": "contraction",
// WORKLOAD-NEXT:   "lhs": 0,
// WORKLOAD-NEXT:   "m": 2,
// WORKLOAD-NEXT:   "n": 4,
// WORKLOAD-NEXT:   "out": 2,
// WORKLOAD-NEXT:   "rhs": 1
// WORKLOAD-NEXT: }

// A malformed workload attribute is an error: test/Transforms/export-kernels-invalid.mlir.

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "//\0A.visible .entry first(\0A\09.param .u64 .ptr .align 8 first_param_0,\0A\09.param .f32 first_param_1\0A)\0A{\0A}\0A.visible .entry second(\0A\09.param .u64 second_param_0\0A)\0A{\0A}\0A">]
  gpu.binary @cubin [#gpu.object<#nvvm.target, bin = "\7FELF">]
  func.func @two_launches(%a: memref<16x4xf32>, %b: memref<8xi32>) -> (memref<8xi32>, memref<16x4xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %s = arith.constant 2.5 : f32
    %n = arith.constant -3 : i32
    %smem = arith.constant 1024 : i32
    gpu.launch_func @kernels::@first blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        dynamic_shared_memory_size %smem args(%a : memref<16x4xf32>, %s : f32)
    gpu.launch_func @kernels::@second blocks in (%c1, %c1, %c2) threads in (%c32, %c2, %c1)
        args(%b : memref<8xi32>)
    gpu.launch_func @cubin::@third blocks in (%c1, %c2, %c1) threads in (%c128, %c1, %c1)
        args(%b : memref<8xi32>, %n : i32, %a : memref<16x4xf32>)
    return %b, %a : memref<8xi32>, memref<16x4xf32>
  }
  func.func @with_workload(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>)
      attributes {tessel.workload = {accumulator_type = "f32", epilogue = ["constant 0", "maximumf 0 1"], k = 3 : i64, kind = "contraction",
                                     lhs = 0 : i64, m = 2 : i64, n = 4 : i64, out = 2 : i64, rhs = 1 : i64}} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@second blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<2x4xf32>)
    return
  }
  func.func private @decl(%a: memref<4xf32>)
  func.func @no_launch(%a: memref<4xf32>) {
    return
  }
}
