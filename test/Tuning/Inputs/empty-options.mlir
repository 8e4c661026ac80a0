module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.tune.knob<"tile_m"> options = [] -> !transform.param<i64>
    transform.yield
  }
}
