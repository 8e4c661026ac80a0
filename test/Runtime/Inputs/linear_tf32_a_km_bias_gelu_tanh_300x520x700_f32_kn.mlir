// y = gelu_tanh(x @ W^T + b) with x stored [k, m] (700x300) and W stored
// kn (700x520), f32, f32 accumulation, TF32 allowed.
func.func @linear(%x: tensor<700x300xf32>, %w: tensor<700x520xf32>, %b: tensor<520xf32>, %y_out: tensor<300x520xf32>) -> tensor<300x520xf32> attributes {tessel.allow_tf32} {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<300x520xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<300x520xf32>) -> tensor<300x520xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (k, n)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<700x300xf32>, tensor<700x520xf32>)
      outs(%acc : tensor<300x520xf32>) -> tensor<300x520xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<300x520xf32>, tensor<520xf32>) outs(%y_out : tensor<300x520xf32>) {
  ^bb0(%a: f32, %bf: f32, %o: f32):
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
    linalg.yield %y : f32
  } -> tensor<300x520xf32>
  return %y : tensor<300x520xf32>
}
