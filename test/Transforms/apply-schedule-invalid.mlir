// Every way tessel-apply-schedule rejects its options or fails. Most
// diagnostics point into the schedule file, so stderr is matched with
// FileCheck rather than --verify-diagnostics.

// RUN: not tessel-opt %s --tessel-apply-schedule 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-SCHEDULE
// NO-SCHEDULE: error: tessel-apply-schedule: the 'schedule' option (path of a schedule library) is required

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/does-not-exist.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING-FILE
// MISSING-FILE: does-not-exist.mlir:0:0: error: cannot open schedule file '{{.*}}Inputs{{/|\\}}does-not-exist.mlir': no such file

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile_x=8" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN-KNOB
// UNKNOWN-KNOB: tile-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: schedule '{{.*}}tile-matmul.mlir' has no knob named 'tile_x' (its knobs: tile)

// The SIMT schedule lists all of its knobs, in order.
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir knobs=tile=8" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN-SIMT
// UNKNOWN-SIMT: error: schedule '{{.*}}matmul_relu_simt.mlir' has no knob named 'tile' (its knobs: tile_m, tile_n, tile_k, thread_m, thread_n)

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=12" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-AN-OPTION
// The error is located at the knob in the schedule.
// NOT-AN-OPTION: tile-matmul.mlir:7:13: error: value 12 is not among the options of knob 'tile': [-4, 4, 8, 16]
// NOT-AN-OPTION-NEXT: %tile = transform.tune.knob<"tile">

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=big" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-A-VALUE
// NOT-A-VALUE: tile-matmul.mlir:7:13: error: cannot parse 'big' as a value of knob 'tile'

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: malformed knob assignment 'tile': expected name=value

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EMPTY-VALUE
// EMPTY-VALUE: error: malformed knob assignment 'tile=': expected name=value

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs==8" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EMPTY-NAME
// EMPTY-NAME: error: malformed knob assignment '=8': expected name=value

// A knob given twice is an error even when both values agree.
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=8,tile=8" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// TWICE: error: knob 'tile' is given more than once

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/knob-without-default.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-VALUE
// NO-VALUE: knob-without-default.mlir:6:13: error: knob 'tile' has no value: give one with knobs=tile=<value> or a `selected` default in the schedule

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir entry=nowhere" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-ENTRY
// NO-ENTRY: error: schedule '{{.*}}tile-matmul.mlir' has no named sequence 'nowhere'

// A schedule that fails on the payload: a negative tile size. The
// schedule's own error comes first, with a note on the payload op, then the
// pass's summary with the knob values in effect, on the payload function.
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=-4" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FAILS
// FAILS: tile-matmul.mlir:{{[0-9]+}}:5: error: knob 'tile' = -4 is negative; tile sizes are positive (or 0 for "not tiled")
// FAILS-NEXT: transform.tessel.check_tile_sizes
// FAILS: apply-schedule-invalid.mlir:[[# @LINE + 4]]:8: note: target op
// FAILS: apply-schedule-invalid.mlir:[[# @LINE + 1]]:1: error: schedule '{{.*}}tile-matmul.mlir' (entry @__transform_main) failed on this payload with knobs: tile=-4
func.func @matmul(%A: tensor<24x16xf32>, %B: tensor<16x64xf32>,
                  %C: tensor<24x64xf32>) -> tensor<24x64xf32> {
  %0 = linalg.matmul ins(%A, %B : tensor<24x16xf32>, tensor<16x64xf32>)
                     outs(%C : tensor<24x64xf32>) -> tensor<24x64xf32>
  return %0 : tensor<24x64xf32>
}

// The payload is left untouched by a failed option check: nothing is
// printed on stdout.
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=12" 2>/dev/null \
// RUN:   | count 0
