// Bad tuning requests fail with a clear error and a non-zero exit, and a
// database that is not Tessel's is never overwritten.

// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir budget=0 runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BUDGET
// BUDGET: tune-invalid.mlir:[[@LINE+86]]:1: error: tessel-tune: budget must be at least 1 trial (got 0)

// RUN: not tessel-opt %s --tessel-tune="schedule=%S/Inputs/no-knobs.mlir runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOKNOBS
// NOKNOBS: error: tessel-tune: the schedule has no transform.tune.knob: nothing to tune

// RUN: not tessel-opt %s --tessel-tune="schedule=%S/Inputs/empty-options.mlir runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EMPTY
// EMPTY: empty-options.mlir:3:10: error: knob 'tile_m' must list its options (a non-empty array) to be tuned

// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=annealing runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: error: tessel-tune: unknown strategy 'annealing' (expected exhaustive, random, evolutionary or model)

// RUN: echo '{"records": [' > %t.corrupt.json && cp %t.corrupt.json %t.corrupt.orig
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir db=%t.corrupt.json runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CORRUPT
// RUN: cmp %t.corrupt.json %t.corrupt.orig
// CORRUPT: error: tessel-tune: {{.*}}corrupt.json: not a Tessel tuning database (invalid JSON: {{.*}}); it is left untouched

// RUN: echo '{"format": "somebody-else", "entries": []}' > %t.foreign.json && cp %t.foreign.json %t.foreign.orig
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir db=%t.foreign.json runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FOREIGN
// RUN: cmp %t.foreign.json %t.foreign.orig
// FOREIGN: error: tessel-tune: {{.*}}foreign.json: not a Tessel tuning database (no "format": "tessel-tuning-db"); it is left untouched

// The tuner writes SQLite: a JSON database is written only by export, and
// a SQLite file of another application or a damaged one is left untouched.
// RUN: rm -f %t.new.json
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir db=%t.new.json runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=JSON-DB
// RUN: not ls %t.new.json
// JSON-DB: error: tessel-tune: {{.*}}new.json: a JSON tuning database is written only whole (by tessel-db export); record trials in a SQLite one
// RUN: rm -f %t.other.db
// RUN: %python -c "import sqlite3; c = sqlite3.connect('%t.other.db'); c.execute('create table t(x)'); c.commit()"
// RUN: cp %t.other.db %t.other.orig
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir db=%t.other.db runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OTHER-DB
// RUN: cmp %t.other.db %t.other.orig
// OTHER-DB: error: tessel-tune: {{.*}}other.db: not a Tessel tuning database (a SQLite file of another application); it is left untouched
// RUN: head -c 3000 %t.other.orig > %t.cut.db && cp %t.cut.db %t.cut.orig
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir db=%t.cut.db runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CUT-DB
// RUN: cmp %t.cut.db %t.cut.orig
// CUT-DB: error: tessel-tune: {{.*}}cut.db: not a Tessel tuning database: {{.*}}

// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir progress=bars runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PROGRESS
// PROGRESS: error: tessel-tune: progress must be auto, lines or none (got 'bars')

// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir replay=%t.missing.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPLAY
// REPLAY: error: tessel-tune: replay database '{{.*}}missing.json' does not exist

// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir runner=%t.no-such-runner" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RUNNER
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir chip=sm_90 features=+ptx70 runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TARGET
// RUNNER: error: tessel-tune: cannot execute the measuring tool '{{.*}}no-such-runner' (set runner=)
// TARGET: error: tessel-tune: PTX version 7.0 does not support sm_90

// Options out of range are refused before anything is compiled; so is an
// entry the schedule does not define (it was reported after compiling every
// candidate).
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir time-budget=-1 runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TIME
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir time-budget=nan runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TIME-NAN
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir warmup-ms=-1 runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WARMUP
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir rep-ms=inf runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REP
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir timeout=0 runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TIMEOUT
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir device=-1 runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEVICE
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir entry=nowhere runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ENTRY --implicit-check-not="[tune]"
// TIME: error: tessel-tune: time-budget must be a finite number of seconds >= 0, 0 for none (got -1)
// TIME-NAN: error: tessel-tune: time-budget must be a finite number of seconds >= 0, 0 for none (got nan)
// WARMUP: error: tessel-tune: warmup-ms must be in [0, 60000] (got -1)
// REP: error: tessel-tune: rep-ms must be in (0, 60000] (got inf)
// TIMEOUT: error: tessel-tune: timeout must be at least 1 second (0 would kill every measurement)
// DEVICE: error: tessel-tune: device must be a CUDA device ordinal >= 0 (got -1)
// ENTRY: error: tessel-tune: schedule file '{{.*}}matmul_relu_simt.mlir' has no transform.named_sequence @nowhere (entry=)

func.func @matmul_relu(%A: tensor<64x32xf32>, %B: tensor<32x64xf32>,
                       %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<64x32xf32>, tensor<32x64xf32>)
                      outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%C : tensor<64x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %relu : tensor<64x64xf32>
}
