// A x B with no epilogue: f16 inputs accumulated in f32 straight into the
// f32 output (the schedules add an exact + 0.0 epilogue to tile).
func.func @mm(%a: tensor<200x72xf16>, %b: tensor<72x136xf16>, %c: tensor<200x136xf32>) -> tensor<200x136xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%c : tensor<200x136xf32>) -> tensor<200x136xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<200x72xf16>, tensor<72x136xf16>)
      outs(%acc : tensor<200x136xf32>) -> tensor<200x136xf32>
  return %mm : tensor<200x136xf32>
}
