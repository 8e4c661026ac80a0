func.func @matmul_relu(%a: tensor<256x384xf16>, %b: tensor<256x320xf16>,
                  %c: tensor<384x320xf16>) -> tensor<384x320xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<384x320xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<384x320xf32>) -> tensor<384x320xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (k, n)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<256x384xf16>, tensor<256x320xf16>)
      outs(%acc : tensor<384x320xf32>) -> tensor<384x320xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<384x320xf32>) outs(%c : tensor<384x320xf16>) {
  ^bb0(%v: f32, %out: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<384x320xf16>
  return %relu : tensor<384x320xf16>
}
