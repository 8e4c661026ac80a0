// A schedule with a knob that has options but no `selected` default: it can
// only be applied with knobs=tile=<value>.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %tile = transform.tune.knob<"tile"> options = [4, 8, 16]
        -> !transform.param<i64>
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %matmul
        tile_sizes [%tile]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
