// The finalists (the two best candidates and the defaults, the knobs the
// compiler picks without a tuned record) are re-measured on fresh inputs
// before one is kept; a kernel that is only right on the inputs it was tuned
// on is never the winner. Here (the stand-in runner) every 256-thread kernel
// is wrong on new inputs, and the three finalists have 256 threads: no
// winner.

// RUN: not env FAKE_WRONG_ON_FRESH_INPUTS=256 tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary start=defaults budget=40 seed=3 runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s
// CHECK: [tune] {{.*}} failed on fresh inputs (wrong-output: relative error {{.*}}): not a winner
// CHECK: error: tessel-tune: every finalist (the two best and the defaults) failed the check on fresh inputs; no verified winner

// Without the fault, the same search keeps a winner.
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary start=defaults budget=40 seed=3 runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// OK-NOT: failed on fresh inputs
// OK: [tune] winner:

// Tuned knobs are kept only if they beat the defaults by more than the
// noise of the re-measurement: here the defaults run 1.5x slower.
// RUN: env FAKE_SLOW_KNOBS=tile_m=32,tile_n=64,tile_k=4,thread_m=2,thread_n=4 tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary start=defaults budget=40 seed=3 runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOW-DEFAULTS
// SLOW-DEFAULTS: [tune] re-measured 3 finalists on fresh inputs, 5 rounds each (noise 0.0%):
// SLOW-DEFAULTS-NEXT: [tune]      1.0000 ms [[BEST:.*]]  (best of the search)
// SLOW-DEFAULTS-NEXT: [tune]      1.0000 ms {{.*}}  (runner-up)
// SLOW-DEFAULTS-NEXT: [tune]      1.5000 ms tile_m=32,tile_n=64,tile_k=4,thread_m=2,thread_n=4  (the defaults)
// SLOW-DEFAULTS-NEXT: [tune] the tuned knobs beat the defaults by 33.3%, beyond the noise
// SLOW-DEFAULTS-NEXT: [tune] winner: [[BEST]]

// When the defaults run faster than every candidate the search measured
// (here half as long), the log says so rather than calling the search's
// best "within the noise", and the defaults win.
// RUN: env FAKE_FAST_KNOBS=tile_m=32,tile_n=64,tile_k=4,thread_m=2,thread_n=4 tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=evolutionary start=defaults budget=8 seed=3 runner=%S/Inputs/fake-runner.py timeout=10 ptxas=none" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAST-DEFAULTS
// FAST-DEFAULTS: [tune] re-measured 3 finalists on fresh inputs, 5 rounds each (noise 0.0%):
// FAST-DEFAULTS-NEXT: [tune]      {{[0-9.]+}} ms {{.*}}  (best of the search)
// FAST-DEFAULTS-NEXT: [tune]      {{[0-9.]+}} ms {{.*}}  (runner-up)
// FAST-DEFAULTS-NEXT: [tune]      0.5000 ms tile_m=32,tile_n=64,tile_k=4,thread_m=2,thread_n=4  (the defaults)
// FAST-DEFAULTS-NEXT: [tune] the search's best is {{[0-9.]+}}% slower than the defaults (noise 0.0%): keeping the defaults
// FAST-DEFAULTS-NEXT: [tune] winner: tile_m=32,tile_n=64,tile_k=4,thread_m=2,thread_n=4
