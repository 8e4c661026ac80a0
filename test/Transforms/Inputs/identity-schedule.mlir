// A schedule that leaves the payload as it is: tessel-apply-schedule still
// records what the payload computes (tessel.workload), which is what tests
// of the workload recognizer look at.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
