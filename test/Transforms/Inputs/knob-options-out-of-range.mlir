// A schedule whose knobs list values no kernel can use (0, negative, 2^62)
// beside one that it can, written with the unusable ones: the rule ranks
// only the usable point (it once divided by the zero tile_k), and the
// schedule, which changes nothing, applies with it.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %tile_m = transform.tune.knob<"tile_m"> = 0 : i64
        from options = [0, 64, 4611686018427387904] -> !transform.param<i64>
    %tile_n = transform.tune.knob<"tile_n"> = -64 : i64
        from options = [-64, 64] -> !transform.param<i64>
    %tile_k = transform.tune.knob<"tile_k"> = 0 : i64
        from options = [0, 8, -8] -> !transform.param<i64>
    %thread_m = transform.tune.knob<"thread_m"> = 0 : i64
        from options = [4, 0] -> !transform.param<i64>
    %thread_n = transform.tune.knob<"thread_n"> = 4611686018427387904 : i64
        from options = [4611686018427387904, 4] -> !transform.param<i64>
    transform.yield
  }
}
