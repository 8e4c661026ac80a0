// Two batch dimensions (2x3) in a linalg.generic contraction with the
// weight stored [n, k]: y = gelu_tanh(x[b0,b1] @ W[b0,b1]^T + bias[b1]) +
// res[b0,b1], bf16, K = 131 (rows that neither TMA nor 16-byte cp.async
// can read).
func.func @blinear(%x: tensor<2x3x77x131xbf16>, %w: tensor<2x3x100x131xbf16>, %bias: tensor<3x100xf32>, %res: tensor<2x3x77x100xbf16>, %y_out: tensor<2x3x77x100xbf16>) -> tensor<2x3x77x100xbf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x3x77x100xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<2x3x77x100xf32>) -> tensor<2x3x77x100xf32>
  %mm = linalg.generic {
      indexing_maps = [affine_map<(b0, b1, m, n, k) -> (b0, b1, m, k)>,
                       affine_map<(b0, b1, m, n, k) -> (b0, b1, n, k)>,
                       affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x77x131xbf16>, tensor<2x3x100x131xbf16>)
      outs(%acc : tensor<2x3x77x100xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %p = arith.mulf %af, %bf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x77x100xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(b0, b1, i, j) -> (b0, b1, i, j)>,
                       affine_map<(b0, b1, i, j) -> (b1, j)>,
                       affine_map<(b0, b1, i, j) -> (b0, b1, i, j)>,
                       affine_map<(b0, b1, i, j) -> (b0, b1, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%mm, %bias, %res : tensor<2x3x77x100xf32>, tensor<3x100xf32>, tensor<2x3x77x100xbf16>)
      outs(%y_out : tensor<2x3x77x100xbf16>) {
  ^bb0(%a: f32, %bi: f32, %r: bf16, %o: bf16):
    %v = arith.addf %a, %bi : f32
    %c = arith.constant 0.7978845608028654 : f32
    %c3 = arith.constant 0.044715 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %t0 = arith.mulf %v3, %c3 : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %c : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %hv = arith.mulf %v, %h : f32
    %g = arith.mulf %hv, %t4 : f32
    %rf = arith.extf %r : bf16 to f32
    %y = arith.addf %g, %rf : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x3x77x100xbf16>
  return %y : tensor<2x3x77x100xbf16>
}
