// A tiny schedule whose only knob is the tile size of the matmul's first
// loop, so that the chosen value shows up as the step of the scf.for (-4
// makes a schedule that fails on the payload).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %tile = transform.tune.knob<"tile"> = 8 : i64
        from options = [-4, 4, 8, 16] -> !transform.param<i64>
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.check_tile_sizes %matmul by %tile
        : !transform.any_op, !transform.param<i64>
    %tiled, %loop = transform.structured.tile_using_for %matmul
        tile_sizes [%tile]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // A third: a remark at the matmul (what a user debugging a schedule
  // writes).
  transform.named_sequence @remark(
      %root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.debug.emit_remark_at %matmul, "the matmul" : !transform.any_op
    transform.yield
  }

  // A second entry point: it leaves the payload unchanged except for a
  // marker attribute on the matmul.
  transform.named_sequence @mark(
      %root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %unit = transform.param.constant unit -> !transform.any_param
    transform.annotate %matmul "tessel.marked" = %unit
        : !transform.any_op, !transform.any_param
    transform.yield
  }
}
