// 3x7x9 f16: K within one tile_k step (a loop of one iteration).
// C = relu(A * B): A is 3x9, B is 9x7, row-major, f16 inputs,
// f32 accumulation, f16 output written into C.
func.func @matmul_relu(%A: tensor<3x9xf16>, %B: tensor<9x7xf16>,
                       %C: tensor<3x7xf16>) -> tensor<3x7xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3x7xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x7xf32>) -> tensor<3x7xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<3x9xf16>, tensor<9x7xf16>)
                      outs(%acc : tensor<3x7xf32>) -> tensor<3x7xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<3x7xf32>) outs(%C : tensor<3x7xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<3x7xf16>
  return %relu : tensor<3x7xf16>
}

