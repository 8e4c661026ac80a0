// A schedule's remarks (transform.debug.emit_remark_at, for a user
// debugging it) reach the user when the schedule serves the payload; only
// the errors of schedules or knob choices that do not serve are held back.
// RUN: tessel-opt %s --verify-diagnostics -o /dev/null \
// RUN:   --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir entry=remark"

func.func @matmul(%A: tensor<32x16xf32>, %B: tensor<16x64xf32>,
                  %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
  // expected-remark@below {{the matmul}}
  %0 = linalg.matmul ins(%A, %B : tensor<32x16xf32>, tensor<16x64xf32>)
                     outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}
