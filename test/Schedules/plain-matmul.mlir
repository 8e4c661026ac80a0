// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" | FileCheck %s --check-prefixes=CHECK,WGMMA
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir" | FileCheck %s --check-prefixes=CHECK,MMA
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir" | FileCheck %s --check-prefixes=CHECK,SIMT

// A contraction without an epilogue: every schedule serves it. The
// recorded workload has no epilogue; the kernel adds +0.0 to each
// accumulator on its way out (exact, and what the schedules tile).
// CHECK-LABEL: func.func @mm(
// CHECK-SAME:    tessel.workload = {accumulator_type = "f32", k = 72 : i64, kind = "contraction", lhs = 0 : i64, m = 200 : i64, n = 136 : i64, out = 2 : i64, rhs = 1 : i64}
// CHECK:         gpu.launch
// WGMMA:           nvgpu.warpgroup.mma
// MMA:             nvgpu.mma.sync
// SIMT:            vector.contract
// CHECK:           arith.addf %{{.+}}, %{{.+}} : vector<{{[0-9]+}}xf32>
func.func @mm(%a: tensor<200x72xf16>, %b: tensor<72x136xf16>, %c: tensor<200x136xf32>) -> tensor<200x136xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%c : tensor<200x136xf32>) -> tensor<200x136xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<200x72xf16>, tensor<72x136xf16>)
      outs(%acc : tensor<200x136xf32>) -> tensor<200x136xf32>
  return %mm : tensor<200x136xf32>
}
