// Every way tessel-apply-schedule rejects its options or fails. Most
// diagnostics point into the schedule file, so stderr is matched with
// FileCheck rather than --verify-diagnostics.

// RUN: not tessel-opt %s --tessel-apply-schedule 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-SCHEDULE
// NO-SCHEDULE: error: tessel-apply-schedule: the 'schedule' option (path of a schedule library) is required

// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir sm-count=-5" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SM-COUNT
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir sm-count=9223372036854775807" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SM-COUNT
// SM-COUNT: error: tessel-apply-schedule: sm-count={{-5|9223372036854775807}} is outside [1, 65536] (0, the default, takes the chip's usual count)

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

// A payload without a contraction: the schedule's matchers find nothing,
// and a note says why.
// RUN: echo 'func.func @f(%%a: tensor<4xf32>) -> tensor<4xf32> { return %%a : tensor<4xf32> }' \
// RUN:   | not tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-CONTRACTION
// NO-CONTRACTION: error: schedule '{{.*}}matmul_relu_wgmma.mlir' (entry @__transform_main) failed on this payload with knobs:
// NO-CONTRACTION-NEXT: func.func @f
// NO-CONTRACTION: note: the payload has no linalg contraction (a linalg.matmul, linalg.batch_matmul or contraction linalg.generic) for the schedule to tile

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

// A payload whose matrices hold more bytes than int64 counts is refused
// before any schedule computes offsets from their sizes (the mma rewrite
// overflowed int64: UBSan).
// RUN: not tessel-opt %S/Inputs/matmul-relu-beyond-int64.mlir --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BEYOND-INT64
// BEYOND-INT64: matmul-relu-beyond-int64.mlir:{{[0-9]+}}:1: error: argument #0 has type 'tensor<3270x192631858173808055xbf16>': its size in bytes is beyond what a 64-bit integer holds

// A schedule that fails on the payload: a negative tile size. The
// schedule's own error comes first, at the op that takes the size, with a
// note at the knob, then the pass's summary with the knob values in
// effect, on the payload function. Upstream's tiling ops accept negative
// sizes (a K tile of -8 made a loop that never ran: a kernel writing
// ReLU(0), exit status 0), so sizes are checked before the schedule runs:
// written in the op (STATIC), from a transform.param.constant (CONSTANT) or
// a knob (FAILS).
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%S/Inputs/tile-matmul.mlir knobs=tile=-4" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FAILS
// FAILS: tile-matmul.mlir:13:21: error: knob 'tile' gives size -4 to 'transform.structured.tile_using_for': sizes are >= 0 (0 leaves a dimension whole)
// FAILS: tile-matmul.mlir:7:13: note: defined here
// FAILS: apply-schedule-invalid.mlir:[[# @LINE + 13]]:1: error: schedule '{{.*}}tile-matmul.mlir' (entry @__transform_main) failed on this payload with knobs: tile=-4
// RUN: sed 's/tile_sizes \[%%tile\]/tile_sizes [-8]/; s/: (!transform.any_op, !transform.param<i64>)$/: (!transform.any_op)/' \
// RUN:   %S/Inputs/tile-matmul.mlir > %t.static.mlir
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%t.static.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATIC
// STATIC: static.mlir:13:21: error: size -8 in 'transform.structured.tile_using_for': sizes are >= 0 (0 leaves a dimension whole)
// RUN: sed 's/%%tile = transform.tune.knob<"tile"> = 8 : i64/%%tile = transform.param.constant -2 : i64 -> !transform.param<i64>/; /from options = \[-4, 4, 8, 16\]/d; /check_tile_sizes/,+1d' \
// RUN:   %S/Inputs/tile-matmul.mlir > %t.constant.mlir
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%t.constant.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CONSTANT
// CONSTANT: constant.mlir:10:21: error: a transform.param.constant gives size -2 to 'transform.structured.tile_using_for': sizes are >= 0 (0 leaves a dimension whole)
// CONSTANT: constant.mlir:7:13: note: defined here
// CONSTANT: error: schedule '{{.*}}constant.mlir' (entry @__transform_main) failed on this payload with knobs: (none)
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
