// The knob's `selected` default (8) is used when no value is given.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir" \
// RUN:   | FileCheck %s --check-prefix=DEFAULT

// A value given with `knobs` overrides the default.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=16" \
// RUN:   | FileCheck %s --check-prefix=TILE16
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=4" \
// RUN:   | FileCheck %s --check-prefix=TILE4

// A knob without a `selected` default is usable once it is given a value.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/knob-without-default.mlir knobs=tile=4" \
// RUN:   | FileCheck %s --check-prefix=TILE4

// `entry` picks another named sequence of the library.
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir entry=mark" \
// RUN:   | FileCheck %s --check-prefix=ENTRY

// Several knobs of the SIMT schedule at once, separated by commas (--cse
// merges the duplicate constants the schedule leaves, so that launch sizes
// can be matched by value).
// RUN: tessel-opt %examples/matmul_relu_256x1024x1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile_m=16,tile_n=32,thread_m=2,thread_n=4,tile_k=8" \
// RUN:   --cse | FileCheck %s --check-prefix=SIMT

func.func @matmul(%A: tensor<32x16xf32>, %B: tensor<16x64xf32>,
                  %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = linalg.matmul ins(%A, %B : tensor<32x16xf32>, tensor<16x64xf32>)
                     outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// The schedule library never ends up in the payload.
// DEFAULT-NOT:   transform.
// DEFAULT-LABEL: func.func @matmul
// DEFAULT-DAG:     %[[C0:.+]] = arith.constant 0 : index
// DEFAULT-DAG:     %[[C32:.+]] = arith.constant 32 : index
// DEFAULT-DAG:     %[[C8:.+]] = arith.constant 8 : index
// DEFAULT:         scf.for %[[I:.+]] = %[[C0]] to %[[C32]] step %[[C8]]
// DEFAULT:           tensor.extract_slice %{{.+}}[%[[I]], 0] [8, 16] [1, 1]
// DEFAULT:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xf32>, tensor<16x64xf32>) outs(%{{.+}} : tensor<8x64xf32>)
// DEFAULT-NOT:   transform.

// TILE16-LABEL: func.func @matmul
// TILE16:         %[[C16:.+]] = arith.constant 16 : index
// TILE16:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C16]]
// TILE16:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<16x16xf32>, tensor<16x64xf32>) outs(%{{.+}} : tensor<16x64xf32>)

// TILE4-LABEL: func.func @matmul
// TILE4:         %[[C4:.+]] = arith.constant 4 : index
// TILE4:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C4]]
// TILE4:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<16x64xf32>) outs(%{{.+}} : tensor<4x64xf32>)

// ENTRY-LABEL: func.func @matmul
// ENTRY-NOT:     scf.for
// ENTRY:         linalg.matmul {tessel.marked} ins(%{{.+}}, %{{.+}} : tensor<32x16xf32>, tensor<16x64xf32>)

// 256x1024 output, block tile 16x32, thread tile 2x4:
// grid (1024/32, 256/16) = (32, 16), block (32/4, 16/2) = (8, 8).
// SIMT-LABEL: func.func @matmul_relu
// SIMT-SAME:    memref<256x1024xf32>
// SIMT-DAG:     %[[C32:.+]] = arith.constant 32 : index
// SIMT-DAG:     %[[C16:.+]] = arith.constant 16 : index
// SIMT-DAG:     %[[C8:.+]] = arith.constant 8 : index
// SIMT-DAG:     %[[C1:.+]] = arith.constant 1 : index
// SIMT:         gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C32]], %{{.+}} = %[[C16]], %{{.+}} = %[[C1]]) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C8]], %{{.+}} = %[[C8]], %{{.+}} = %[[C1]])
// SIMT:           vector.contract
// SIMT-SAME:        vector<2x8xf32>, vector<8x4xf32> into vector<2x4xf32>
