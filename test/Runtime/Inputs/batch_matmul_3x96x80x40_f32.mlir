// A[b] x B[b] for 3 batch elements with no epilogue: linalg.batch_matmul
// accumulating into its zero-filled output, f32.
func.func @bmm(%a: tensor<3x96x40xf32>, %b: tensor<3x40x80xf32>, %out: tensor<3x96x80xf32>) -> tensor<3x96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<3x96x80xf32>) -> tensor<3x96x80xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<3x96x40xf32>, tensor<3x40x80xf32>)
      outs(%acc : tensor<3x96x80xf32>) -> tensor<3x96x80xf32>
  return %mm : tensor<3x96x80xf32>
}
