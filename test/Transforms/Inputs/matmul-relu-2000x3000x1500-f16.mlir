// C = relu(A * B): A is 2000x1500, B is 1500x3000, row-major, f16 inputs,
// f32 accumulation, f16 output written into C.
func.func @matmul_relu(%A: tensor<2000x1500xf16>, %B: tensor<1500x3000xf16>,
                       %C: tensor<2000x3000xf16>) -> tensor<2000x3000xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2000x3000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<2000x3000xf32>) -> tensor<2000x3000xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<2000x1500xf16>, tensor<1500x3000xf16>)
                      outs(%acc : tensor<2000x3000xf32>) -> tensor<2000x3000xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<2000x3000xf32>) outs(%C : tensor<2000x3000xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2000x3000xf16>
  return %relu : tensor<2000x3000xf16>
}
