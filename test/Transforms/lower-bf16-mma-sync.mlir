// RUN: tessel-opt %s --tessel-lower-bf16-mma-sync | FileCheck %s

// bf16 mma.sync becomes nvvm.mma.sync on 32-bit registers; f16 is left to
// the upstream NVGPU lowering.

// CHECK-LABEL: func.func @bf16
// CHECK-COUNT-6: vector.bitcast {{.+}} : vector<2xbf16> to vector<1xi32>
// CHECK:         %[[MMA:.+]] = nvvm.mma.sync A[{{.+}}] B[{{.+}}] C[{{.+}}]
// CHECK-SAME:      layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME:      multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME:      shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME:      -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[MMA]]
// CHECK:         %[[R:.+]] = vector.insert {{.+}} [1] : vector<2xf32> into vector<2x2xf32>
// CHECK:         return %[[R]]
// CHECK-LABEL: func.func @f16
// CHECK:         nvgpu.mma.sync
func.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]}
      : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
func.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]}
      : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
