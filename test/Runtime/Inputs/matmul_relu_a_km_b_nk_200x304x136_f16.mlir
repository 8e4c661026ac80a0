// relu(A x B) with A stored [k, m] and B stored [n, k] (both transposed):
// partial tiles along M, N and K; M = 200 rows of 400 bytes.
func.func @matmul_relu(%a: tensor<136x200xf16>, %b: tensor<304x136xf16>,
                  %c: tensor<200x304xf16>) -> tensor<200x304xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<200x304xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<200x304xf32>) -> tensor<200x304xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<136x200xf16>, tensor<304x136xf16>)
      outs(%acc : tensor<200x304xf32>) -> tensor<200x304xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<200x304xf32>) outs(%c : tensor<200x304xf16>) {
  ^bb0(%v: f32, %out: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<200x304xf16>
  return %relu : tensor<200x304xf16>
}
