// y = gelu_tanh(x @ W^T + b) with x stored [k, m] (131x77: rows of 154
// bytes, off 16-byte boundaries) and W stored [n, k] (100x131), bf16,
// f32 accumulation.
func.func @linear(%x: tensor<131x77xbf16>, %w: tensor<100x131xbf16>, %b: tensor<100xbf16>, %y_out: tensor<77x100xbf16>) -> tensor<77x100xbf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<77x100xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<77x100xf32>) -> tensor<77x100xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<131x77xbf16>, tensor<100x131xbf16>)
      outs(%acc : tensor<77x100xf32>) -> tensor<77x100xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<77x100xf32>, tensor<100xbf16>) outs(%y_out : tensor<77x100xbf16>) {
  ^bb0(%a: f32, %bi: bf16, %o: bf16):
    %bf = arith.extf %bi : bf16 to f32
    %v = arith.addf %a, %bf : f32
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
    %y = arith.mulf %hv, %t4 : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<77x100xbf16>
  return %y : tensor<77x100xbf16>
}
