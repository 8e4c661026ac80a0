// A Linear layer as a front end writes it: the bias add, the activation
// (SiLU) and the conversion to bf16 are three elementwise generics.
func.func @chain(%x: tensor<200x72xbf16>, %w: tensor<136x72xbf16>, %b: tensor<136xbf16>, %y_out: tensor<200x136xbf16>) -> tensor<200x136xbf16> {
  %fzero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<200x136xf32>
  %acc = linalg.fill ins(%fzero : f32) outs(%empty : tensor<200x136xf32>) -> tensor<200x136xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<200x72xbf16>, tensor<136x72xbf16>)
      outs(%acc : tensor<200x136xf32>) -> tensor<200x136xf32>
  %e1 = tensor.empty() : tensor<200x136xf32>
  %biased = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<200x136xf32>, tensor<136xbf16>) outs(%e1 : tensor<200x136xf32>) {
  ^bb0(%a: f32, %bi: bf16, %o: f32):
    %bf = arith.extf %bi : bf16 to f32
    %v = arith.addf %a, %bf : f32
    linalg.yield %v : f32
  } -> tensor<200x136xf32>
  %e2 = tensor.empty() : tensor<200x136xf32>
  %act = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<200x136xf32>) outs(%e2 : tensor<200x136xf32>) {
  ^bb0(%v: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %v : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %v, %d : f32
    linalg.yield %s : f32
  } -> tensor<200x136xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%act : tensor<200x136xf32>) outs(%y_out : tensor<200x136xbf16>) {
  ^bb0(%s: f32, %o: bf16):
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<200x136xbf16>
  return %y : tensor<200x136xbf16>
}
