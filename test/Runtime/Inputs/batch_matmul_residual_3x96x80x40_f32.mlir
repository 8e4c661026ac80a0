// A[b] x B[b] + R[b] for 3 batch elements: linalg.batch_matmul and a
// batched residual, f32 (the SIMT schedule).
func.func @bmm(%a: tensor<3x96x40xf32>, %b: tensor<3x40x80xf32>, %r: tensor<3x96x80xf32>, %out: tensor<3x96x80xf32>) -> tensor<3x96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3x96x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x96x80xf32>) -> tensor<3x96x80xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<3x96x40xf32>, tensor<3x40x80xf32>)
      outs(%acc : tensor<3x96x80xf32>) -> tensor<3x96x80xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %r : tensor<3x96x80xf32>, tensor<3x96x80xf32>) outs(%out : tensor<3x96x80xf32>) {
  ^bb0(%x: f32, %ri: f32, %o: f32):
    %v = arith.addf %x, %ri : f32
    linalg.yield %v : f32
  } -> tensor<3x96x80xf32>
  return %y : tensor<3x96x80xf32>
}
