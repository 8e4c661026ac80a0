// 3x7x9 f16 Linear layer without bias: y = relu(x W^T), x 3x9, the weight W
// stored 7x9 ([n, k], PyTorch's layout), f32 accumulation, f16 output.
func.func @linear(%x: tensor<3x9xf16>, %w: tensor<7x9xf16>,
                  %y: tensor<3x7xf16>) -> tensor<3x7xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3x7xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x7xf32>) -> tensor<3x7xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<3x9xf16>, tensor<7x9xf16>)
      outs(%acc : tensor<3x7xf32>) -> tensor<3x7xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<3x7xf32>) outs(%y : tensor<3x7xf16>) {
  ^bb0(%v: f32, %out: f16):
    %r = arith.maximumf %v, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<3x7xf16>
  return %relu : tensor<3x7xf16>
}
