// relu(A[b] x B[b] + bias) for 4 batch elements with A stored [b, k, m]:
// linalg.batch_matmul, A 4x72x200, B 4x72x136 (K-residue of a 64-deep
// step), bias [n], f16.
func.func @bmm(%a: tensor<4x72x200xf16>, %b: tensor<4x72x136xf16>, %bias: tensor<136xf16>, %out: tensor<4x200x136xf16>) -> tensor<4x200x136xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x200x136xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x200x136xf32>) -> tensor<4x200x136xf32>
  %mm = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                                             affine_map<(b, m, n, k) -> (b, k, n)>,
                                             affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<4x72x200xf16>, tensor<4x72x136xf16>)
      outs(%acc : tensor<4x200x136xf32>) -> tensor<4x200x136xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x200x136xf32>, tensor<136xf16>) outs(%out : tensor<4x200x136xf16>) {
  ^bb0(%x: f32, %bi: f16, %o: f16):
    %bf = arith.extf %bi : f16 to f32
    %v = arith.addf %x, %bf : f32
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x200x136xf16>
  return %y : tensor<4x200x136xf16>
}
