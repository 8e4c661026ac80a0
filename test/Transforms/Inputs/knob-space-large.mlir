// A knob space of 16^12 = 2^48 points: the rule samples 65,536 of them (it
// once scored every point: six of these knobs took 78 s, twelve would not
// end). The schedule changes nothing.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %k0 = transform.tune.knob<"tile_m"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k1 = transform.tune.knob<"tile_n"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k2 = transform.tune.knob<"tile_k"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k3 = transform.tune.knob<"thread_m"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k4 = transform.tune.knob<"thread_n"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k5 = transform.tune.knob<"extra0"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k6 = transform.tune.knob<"extra1"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k7 = transform.tune.knob<"extra2"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k8 = transform.tune.knob<"extra3"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k9 = transform.tune.knob<"extra4"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k10 = transform.tune.knob<"extra5"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    %k11 = transform.tune.knob<"extra6"> = 4 : i64
        from options = [1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 6, 7, 9, 10, 11, 12] -> !transform.param<i64>
    transform.yield
  }
}
